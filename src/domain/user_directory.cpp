#include "domain/user_directory.hpp"

namespace plaudit::domain {

std::optional<Principal> PrincipalOf(const sql::UserRow& row) {
  if (row.deleted_at_ms != 0) {
    return std::nullopt;
  }
  auto role = ParseRole(row.role);
  if (!role) {
    return std::nullopt;  // the CHECK constraint rules this out; refuse, never guess
  }
  Principal p;
  p.id = row.id;
  p.username = row.username;
  p.display_name = row.display_name;
  p.role = *role;
  p.created_at_ms = row.created_at_ms;
  p.banned_until_ms = row.banned_until_ms;
  return p;
}

UserDirectory::UserDirectory(sql::UserTable& table, size_t capacity,
                             std::chrono::milliseconds max_age)
    : table_(table), capacity_(capacity), max_age_(max_age) {}

const std::optional<Principal>* UserDirectory::FindCached(int64_t id) {
  if (!live_) {
    return nullptr;
  }
  auto it = entries_.find(id);
  // An entry past its age stays (until Put needs the room): Lookup falls back on it while SQL
  // is unreachable.
  if (it == entries_.end() || it->second.valid_until <= Clock::now()) {
    return nullptr;
  }
  return &it->second.principal;
}

Awaitable<Result<std::optional<Principal>>> UserDirectory::Lookup(int64_t id) {
  if (const auto* hit = FindCached(id)) {
    co_return *hit;
  }
  const uint64_t epoch = epoch_;
  std::function<Awaitable<Result<std::optional<Principal>>>()> load =
      [this, id]() -> Awaitable<Result<std::optional<Principal>>> {
    PL_CO_TRY(auto row, co_await table_.FindById(id));
    if (!row) {
      co_return std::optional<Principal>{};
    }
    co_return PrincipalOf(*row);
  };
  const std::pair<int64_t, uint64_t> key{id, epoch};
  auto found = co_await loads_.Do(key, std::move(load));
  if (!found) {
    // SQL away: the last answer stands unless something was forgotten meanwhile (the epoch)
    // or the channel went down (live_; SetLive empties the entries).
    if (found.error().code == ErrorCode::kUnavailable && live_ && epoch == epoch_) {
      if (auto it = entries_.find(id); it != entries_.end()) {
        co_return it->second.principal;
      }
    }
    co_return tl::unexpected(found.error());
  }
  Put(id, *found, epoch);
  co_return std::move(*found);
}

void UserDirectory::Put(int64_t id, const std::optional<Principal>& principal,
                        uint64_t epoch_at_lookup) {
  if (!live_ || epoch_at_lookup != epoch_ || capacity_ == 0) {
    return;
  }
  const auto now = Clock::now();
  if (entries_.size() >= capacity_ && !entries_.count(id)) {
    std::erase_if(entries_, [&](const auto& e) { return e.second.valid_until <= now; });
    if (entries_.size() >= capacity_) {
      entries_.clear();  // the cache only saves reads
    }
  }
  entries_[id] = Entry{principal, now + max_age_};
}

void UserDirectory::Forget(int64_t id) {
  ++epoch_;
  entries_.erase(id);
}

void UserDirectory::Clear() {
  ++epoch_;
  entries_.clear();
}

void UserDirectory::SetLive(bool subscribed) {
  live_ = subscribed;
  Clear();
}

}  // namespace plaudit::domain
