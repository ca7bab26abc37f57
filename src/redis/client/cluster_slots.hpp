#pragma once
// What a Redis Cluster client must know about a command without sending it, and about a
// reply without acting on it: the hash slot of the command's key, whether a reply is a
// redirection (MOVED, ASK) or a "try again later" (TRYAGAIN, CLUSTERDOWN), and the slot map
// CLUSTER SLOTS describes. Pure functions, held to the cluster specification by unit tests.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/redis_endpoint.hpp"
#include "common/result.hpp"
#include "redis/client/reply.hpp"

namespace plaudit::redis::cluster {

inline constexpr int kSlots = 16384;

// CRC16 (XMODEM) of the key's hash tag (the part between the first '{' and the next '}',
// when not empty) or of the whole key, mod 16384: the cluster specification's HASH_SLOT.
int KeySlot(std::string_view key);
// The part of `key` KeySlot hashes: its hash tag, or the whole key.
std::string_view HashedPart(std::string_view key);

// Around the hashed part ("<tag>") of a script's first key (keys.hpp lists the key).
inline constexpr std::string_view kSlotGuardPrefix = "pl:guard:{";
inline constexpr std::string_view kSlotGuardTail = "}";

// A key in `key`'s slot that nothing ever writes (kSlotGuardPrefix + "<hashed part>}"),
// appended to a script's keys by ClusterClient. While the slot migrates, Redis finds it
// missing on both sides and refuses the script (ASK at the source, TRYAGAIN at the target)
// rather than let it run on a half-moved set of keys: see cluster_client.hpp. Empty when no
// such key hashes alike (a key with no tag whose text holds a '}'; Plaudit builds none).
std::string SlotGuardKey(std::string_view key);

// The key a command is routed by: argv[1] for the key commands Plaudit sends, the first of
// EVAL/EVALSHA's keys, none (nullopt) for those that name no key (PING, INFO, TIME, PUBLISH,
// SCRIPT, SCAN, an EVALSHA of no key...), which any node answers.
std::optional<std::string_view> CommandKey(const std::vector<std::string>& argv);
// The same for one command framed in RESP (resp.hpp's FramedCommands); nullopt also for
// bytes that are not one well-framed command.
std::optional<std::string_view> FramedCommandKey(std::string_view resp);

// -1 for a command of no key.
inline int CommandSlot(const std::vector<std::string>& argv) {
  auto key = CommandKey(argv);
  return key ? KeySlot(*key) : -1;
}

// What a reply asks of the client.
struct Redirect {
  enum class Kind { kNone, kMoved, kAsk, kTryAgain };
  Kind kind = Kind::kNone;
  int slot = -1;
  RedisEndpoint::Node node;  // kMoved, kAsk: where to go; an empty host means "the same host"
};
// MOVED slot host:port, ASK slot host:port; TRYAGAIN (a multi-key command during a slot's
// migration) and CLUSTERDOWN (the cluster is failing over) as kTryAgain.
Redirect ParseRedirect(const Reply& reply);

// The slot map: for each slot, the index of its primary in `primaries` (-1: no node serves it).
struct SlotMap {
  std::vector<RedisEndpoint::Node> primaries;
  std::array<int16_t, kSlots> owner{};
  SlotMap() { owner.fill(-1); }
};
// CLUSTER SLOTS' reply. A node that answers with an empty host (it does not know its own
// address) is at `asked_host`, the host the reply came from.
Result<SlotMap> ParseClusterSlots(const Reply& reply, std::string_view asked_host);

std::string NodeName(const RedisEndpoint::Node& node);

}  // namespace plaudit::redis::cluster
