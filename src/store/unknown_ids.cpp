#include "store/unknown_ids.hpp"

#include <algorithm>

#include "redis/keys.hpp"

namespace plaudit::store {

Awaitable<Result<UnknownIds::Look>> UnknownIds::Sort(const std::vector<int64_t>& ids) {
  std::vector<int> shards;
  shards.reserve(ids.size());
  for (int64_t id : ids) {
    shards.push_back(redis::keys::LikeShard(id));
  }
  std::sort(shards.begin(), shards.end());
  shards.erase(std::unique(shards.begin(), shards.end()), shards.end());
  const uint64_t generation = store_.Generation();
  PL_CO_TRY(const redis::IdFrontier frontier, co_await store_.ReadIdFrontier(kind_, shards));
  Look look;
  look.unknown.assign(ids.size(), false);
  look.stamp.assign(ids.size(), std::nullopt);
  look.generation = generation;
  // A reconnect during the read: its answers may come from another server than the entries'.
  if (store_.Generation() != generation) {
    co_return look;
  }
  if (entries_.size() > 0 && entries_.begin()->second.generation != generation) {
    entries_.clear();
  }
  for (size_t i = 0; i < ids.size(); ++i) {
    const int64_t id = ids[i];
    const int64_t seq = kind_ == redis::IdKind::kComment ? id / redis::keys::kLikeShards : id;
    if (frontier.seq && seq > *frontier.seq) {
      look.unknown[i] = true;
      continue;
    }
    const auto at = std::lower_bound(shards.begin(), shards.end(), redis::keys::LikeShard(id));
    const redis::IdFrontier::Shard& shard =
        frontier.shards[static_cast<size_t>(at - shards.begin())];
    if (!shard.birth) {
      continue;  // emptied since the last check: nothing holds
    }
    const Stamp now{*shard.birth, shard.seq.value_or(-1)};
    if (auto e = entries_.find(id); e != entries_.end()) {
      if (e->second.generation == generation && e->second.stamp == now) {
        look.unknown[i] = true;
        continue;
      }
      entries_.erase(e);
    }
    if (!shard.marked) {
      look.stamp[i] = now;
    }
  }
  co_return look;
}

void UnknownIds::Remember(const Look& look, size_t i, int64_t id) {
  if (!look.stamp[i] || store_.Generation() != look.generation) {
    return;
  }
  if (entries_.size() >= kCapacity) {
    entries_.clear();
  }
  entries_[id] = Entry{*look.stamp[i], look.generation};
}

}  // namespace plaudit::store
