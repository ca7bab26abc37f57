// LikeStore's shared ground: a target's name and shard, user-id buckets, and the mode hints.
// The store's calls live in like_*.cpp by concern (Set in like_set.cpp).
#include "redis/like_store.hpp"

#include "redis/keys.hpp"

namespace plaudit::redis {

static_assert(ShardSet::kShards == keys::kLikeShards, "a shard set holds every like shard");

uint64_t LikeModeHints::Tag(const model::Target& t) {
  // Fibonacci hashing: the top bits pick the slot; | 1 keeps a used slot non-zero.
  const uint64_t key = (static_cast<uint64_t>(t.id) << 1) | (t.is_comment() ? 1 : 0);
  return (key * 0x9E3779B97F4A7C15ULL) | 1;
}

bool LikeModeHints::Big(const model::Target& t) const {
  const uint64_t tag = Tag(t);
  return slots_[tag >> (64 - kSlotBits)] == tag;
}

void LikeModeHints::Record(const model::Target& t, bool big) {
  const uint64_t tag = Tag(t);
  uint64_t& slot = slots_[tag >> (64 - kSlotBits)];
  if (big) {
    slot = tag;
  } else if (slot == tag) {
    slot = 0;
  }
}

int TargetShard(const model::Target& t) { return keys::LikeShard(t.id); }
std::string TargetName(const model::Target& t) {
  return keys::Cat(t.is_comment() ? "c" : "a", keys::Num(t.id));
}
int64_t LikeBucketOf(int64_t user_id) { return user_id >> keys::kLikeBucketShift; }
std::pair<int64_t, int64_t> LikeBucketUsers(int64_t bucket) {
  return {bucket << keys::kLikeBucketShift, ((bucket + 1) << keys::kLikeBucketShift) - 1};
}

}  // namespace plaudit::redis
