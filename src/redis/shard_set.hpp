#pragma once
// A set of like shards (keys.hpp: every like, cache mark and comment cache of an article
// lives in its article's shard). The stores note the shards a process wrote to, so that its
// flush pass reads only those, not all 256, when it has had nothing to do (issue 47: an idle
// plauditd sent ~2,300 Redis commands a second sweeping every shard every second).
#include <bitset>
#include <cstddef>
#include <vector>

namespace plaudit::redis {

class ShardSet {
 public:
  static constexpr int kShards = 256;  // keys::kLikeShards (static_assert in like_store.cpp)

  static ShardSet All() {
    ShardSet s;
    s.bits_.set();
    return s;
  }
  // `count` shards from `first` on, wrapping around after the last.
  static ShardSet Range(int first, int count) {
    ShardSet s;
    for (int i = 0; i < count && i < kShards; ++i) {
      s.Add((first + i) % kShards);
    }
    return s;
  }

  void Add(int shard) {
    if (shard >= 0 && shard < kShards) {
      bits_.set(static_cast<size_t>(shard));
    }
  }
  void Remove(int shard) {
    if (shard >= 0 && shard < kShards) {
      bits_.reset(static_cast<size_t>(shard));
    }
  }
  bool Has(int shard) const {
    return shard >= 0 && shard < kShards && bits_.test(static_cast<size_t>(shard));
  }
  bool Empty() const { return bits_.none(); }
  size_t Size() const { return bits_.count(); }
  bool IsAll() const { return bits_.all(); }
  ShardSet& operator|=(const ShardSet& o) {
    bits_ |= o.bits_;
    return *this;
  }
  // Without the shards of `o`.
  ShardSet& operator-=(const ShardSet& o) {
    bits_ &= ~o.bits_;
    return *this;
  }
  bool operator==(const ShardSet&) const = default;
  // Ascending.
  std::vector<int> List() const {
    std::vector<int> out;
    out.reserve(bits_.count());
    for (int s = 0; s < kShards; ++s) {
      if (bits_.test(static_cast<size_t>(s))) {
        out.push_back(s);
      }
    }
    return out;
  }
  // Returns the set and leaves this one empty.
  ShardSet Take() {
    ShardSet out = *this;
    bits_.reset();
    return out;
  }

 private:
  std::bitset<kShards> bits_;
};

}  // namespace plaudit::redis
