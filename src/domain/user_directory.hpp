#pragma once
// Who a user is now, as SQL (the record) says: the role, and whether the account still exists.
//
// A session (Redis) only names the user its token belongs to; what that user may do is read
// here on every request, so a demotion or a deletion reaches every session at once however
// long ago it was minted, a login racing a demotion cannot mint the old role into a session,
// and a Redis restored from an old snapshot hands nobody's rights back.
//
// Kept per process, coherent across processes the way the session cache is
// (docs/architecture.md "Sessions and roles"):
// - a change is committed in SQL, then Forget()-ten here, then published on the sessions'
//   invalidation channel, which every plauditd's subscriber applies before the change's
//   request is answered;
// - the cache is used only while that subscription is up, and emptied whenever it goes up or
//   down (messages may have been missed);
// - a lookup that was in flight while anything was forgotten is not stored, and no lookup
//   joins one that began before a Forget (the flights are keyed by the epoch);
// - an entry is used at most kMaxAge, which bounds a change made behind plauditd's back (an
//   UPDATE by hand in SQL, or a change whose publication failed after its commit), except:
// - while SQL is unreachable, a lookup answers the last principal SQL gave for the account,
//   however old, if nothing has forgotten it since (issue 50: a database outage must not sign
//   every reader out). A change made through another plauditd still reaches this one as a
//   Forget on the channel; one whose publication failed, or a hand UPDATE, made while only this
//   process cannot reach SQL, waits for SQL to come back (docs/security.md).
#include <chrono>
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <utility>

#include "common/result.hpp"
#include "common/single_flight.hpp"
#include "domain/user.hpp"
#include "sql/users.hpp"

namespace plaudit::domain {

class UserDirectory {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr std::chrono::seconds kMaxAge{60};

  explicit UserDirectory(sql::UserTable& table, size_t capacity = 100'000,
                         std::chrono::milliseconds max_age = kMaxAge);

  // The account as it is now; nullopt when there is no such user or it was deleted.
  Awaitable<Result<std::optional<Principal>>> Lookup(int64_t id);
  // What Lookup would answer, when the cache knows it now (no SQL read, no coroutine); null
  // when Lookup must ask SQL.
  const std::optional<Principal>* FindCached(int64_t id);

  // What SQL said of account `id` at a read that began at `epoch_at_read` (epoch()): a login
  // stores the principal of the row it checked, so the session's first request needs no
  // second read.
  void Remember(int64_t id, const std::optional<Principal>& principal, uint64_t epoch_at_read) {
    Put(id, principal, epoch_at_read);
  }
  uint64_t epoch() const { return epoch_; }

  // The account changed (committed in SQL): the next lookup reads SQL.
  void Forget(int64_t id);
  void Clear();
  // Wired to the invalidation channel's subscription.
  void SetLive(bool subscribed);

  // For tests: lookups SQL answered.
  int loads() const { return loads_.loads(); }

 private:
  struct Entry {
    std::optional<Principal> principal;
    Clock::time_point valid_until;
  };
  void Put(int64_t id, const std::optional<Principal>& principal, uint64_t epoch_at_lookup);

  sql::UserTable& table_;
  size_t capacity_;
  std::chrono::milliseconds max_age_;
  bool live_ = false;
  uint64_t epoch_ = 0;
  std::unordered_map<int64_t, Entry> entries_;
  SingleFlight<std::pair<int64_t, uint64_t>, std::optional<Principal>> loads_;
};

// The principal of an account row; nullopt when it is deleted (or its role unreadable).
std::optional<Principal> PrincipalOf(const sql::UserRow& row);

}  // namespace plaudit::domain
