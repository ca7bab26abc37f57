#include "redis/client/cluster_slots.hpp"

#include <algorithm>
#include <array>
#include <boost/crc.hpp>
#include <charconv>

namespace plaudit::redis::cluster {

std::string_view HashedPart(std::string_view key) {
  if (const size_t open = key.find('{'); open != std::string_view::npos) {
    const size_t close = key.find('}', open + 1);
    if (close != std::string_view::npos && close > open + 1) {
      return key.substr(open + 1, close - open - 1);
    }
  }
  return key;
}

std::string SlotGuardKey(std::string_view key) {
  const std::string_view part = HashedPart(key);
  if (part.empty() || part.find('}') != std::string_view::npos) {
    return {};
  }
  std::string guard;
  guard.reserve(kSlotGuardPrefix.size() + part.size() + kSlotGuardTail.size());
  guard.append(kSlotGuardPrefix).append(part).append(kSlotGuardTail);
  return guard;
}

int KeySlot(std::string_view key) {
  key = HashedPart(key);
  // CRC-16/XMODEM: polynomial 0x1021, initial 0, no reflection, no final xor.
  boost::crc_optimal<16, 0x1021, 0, 0, false, false> crc;
  crc.process_bytes(key.data(), key.size());
  return crc.checksum() & (kSlots - 1);
}

namespace {

// Commands of no key, which any node may answer. Plaudit's own, and what tests send.
bool Keyless(std::string_view name) {
  static constexpr std::array<std::string_view, 19> kNames = {
      "ASKING", "CLIENT",   "CLUSTER", "COMMAND", "CONFIG", "DBSIZE",  "DEBUG",
      "ECHO",   "FLUSHALL", "FLUSHDB", "INFO",    "PING",   "PUBLISH", "ROLE",
      "SCAN",   "SCRIPT",   "SELECT",  "TIME",    "WAIT"};
  return std::find(kNames.begin(), kNames.end(), name) != kNames.end();
}

bool IsEval(std::string_view name) {
  return name == "EVALSHA" || name == "EVAL" || name == "EVALSHA_RO" || name == "EVAL_RO" ||
         name == "FCALL" || name == "FCALL_RO";
}

// argv[2] of an EVAL, as a key count.
std::optional<size_t> KeyCount(std::string_view text) {
  size_t n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc{} || end != text.data() + text.size()) {
    return std::nullopt;
  }
  return n;
}

template <class Arg>
std::optional<std::string_view> KeyOf(size_t argc, Arg arg) {
  if (argc < 2) {
    return std::nullopt;
  }
  const std::string_view name = arg(0);
  if (Keyless(name)) {
    return std::nullopt;
  }
  if (IsEval(name)) {
    if (argc < 4) {
      return std::nullopt;
    }
    auto keys = KeyCount(arg(2));
    if (!keys || *keys == 0) {
      return std::nullopt;
    }
    return arg(3);
  }
  return arg(1);
}

// Reads "<prefix><decimal>\r\n" at `at`; advances past it.
std::optional<size_t> ReadLength(std::string_view resp, size_t& at, char prefix) {
  if (at >= resp.size() || resp[at] != prefix) {
    return std::nullopt;
  }
  const size_t end = resp.find("\r\n", at);
  if (end == std::string_view::npos) {
    return std::nullopt;
  }
  size_t n = 0;
  auto [p, ec] = std::from_chars(resp.data() + at + 1, resp.data() + end, n);
  if (ec != std::errc{} || p != resp.data() + end) {
    return std::nullopt;
  }
  at = end + 2;
  return n;
}

}  // namespace

std::optional<std::string_view> CommandKey(const std::vector<std::string>& argv) {
  return KeyOf(argv.size(), [&](size_t i) { return std::string_view(argv[i]); });
}

std::optional<std::string_view> FramedCommandKey(std::string_view resp) {
  size_t at = 0;
  auto argc = ReadLength(resp, at, '*');
  if (!argc) {
    return std::nullopt;
  }
  // The first four arguments at most are looked at (EVALSHA sha numkeys key).
  std::array<std::string_view, 4> args;
  const size_t wanted = std::min<size_t>(*argc, args.size());
  for (size_t i = 0; i < wanted; ++i) {
    auto len = ReadLength(resp, at, '$');
    if (!len || at + *len + 2 > resp.size()) {
      return std::nullopt;
    }
    args[i] = resp.substr(at, *len);
    at += *len + 2;
  }
  return KeyOf(*argc, [&](size_t i) { return args[i]; });
}

namespace {

std::optional<RedisEndpoint::Node> ParseNode(std::string_view text) {
  const size_t colon = text.rfind(':');
  if (colon == std::string_view::npos) {
    return std::nullopt;
  }
  int port = 0;
  const std::string_view digits = text.substr(colon + 1);
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), port);
  if (ec != std::errc{} || end != digits.data() + digits.size() || port <= 0 || port > 65535) {
    return std::nullopt;
  }
  return RedisEndpoint::Node{std::string(text.substr(0, colon)), port};
}

}  // namespace

Redirect ParseRedirect(const Reply& reply) {
  Redirect r;
  if (!reply.is_error()) {
    return r;
  }
  const std::string_view s = reply.str;
  if (s.starts_with("TRYAGAIN") || s.starts_with("CLUSTERDOWN")) {
    r.kind = Redirect::Kind::kTryAgain;
    return r;
  }
  const bool moved = s.starts_with("MOVED ");
  if (!moved && !s.starts_with("ASK ")) {
    return r;
  }
  const std::string_view rest = s.substr(moved ? 6 : 4);
  const size_t space = rest.find(' ');
  if (space == std::string_view::npos) {
    return r;
  }
  int slot = -1;
  const char* slot_begin = rest.data();
  const char* slot_end = slot_begin + space;
  auto [end, ec] = std::from_chars(slot_begin, slot_end, slot);
  if (ec != std::errc{} || end != slot_end || slot < 0 || slot >= kSlots) {
    return r;
  }
  auto node = ParseNode(rest.substr(space + 1));
  if (!node) {
    return r;
  }
  r.kind = moved ? Redirect::Kind::kMoved : Redirect::Kind::kAsk;
  r.slot = slot;
  r.node = std::move(*node);
  return r;
}

Result<SlotMap> ParseClusterSlots(const Reply& reply, std::string_view asked_host) {
  if (reply.type != Reply::Type::kArray) {
    return Fail(ErrorCode::kUnavailable,
                "CLUSTER SLOTS: " + (reply.is_error() ? reply.str : "not an array"));
  }
  SlotMap map;
  for (const Reply& range : reply.elements) {
    if (range.elements.size() < 3 || range.elements[2].elements.size() < 2) {
      return Fail(ErrorCode::kInternal, "CLUSTER SLOTS: malformed range");
    }
    const int64_t first = range.elements[0].integer;
    const int64_t last = range.elements[1].integer;
    if (first < 0 || last >= kSlots || first > last) {
      return Fail(ErrorCode::kInternal, "CLUSTER SLOTS: bad slot range");
    }
    const Reply& primary = range.elements[2];
    RedisEndpoint::Node node{primary.elements[0].str,
                             static_cast<int>(primary.elements[1].integer)};
    if (node.host.empty() || node.host == "?") {
      node.host = asked_host;
    }
    auto it = std::find(map.primaries.begin(), map.primaries.end(), node);
    if (it == map.primaries.end()) {
      map.primaries.push_back(node);
      it = map.primaries.end() - 1;
    }
    std::fill(map.owner.begin() + first, map.owner.begin() + last + 1,
              static_cast<int16_t>(it - map.primaries.begin()));
  }
  return map;
}

std::string NodeName(const RedisEndpoint::Node& node) {
  return node.host + ":" + std::to_string(node.port);
}

}  // namespace plaudit::redis::cluster
