#pragma once
// What a like is of (API.md "Likes"): an article (a post or a page's thread too) or a comment,
// by id. The domain speaks of targets in these words; how a store names or shards one is the
// store's own (redis/like_store.hpp: TargetName, TargetShard).
#include <cstdint>

namespace plaudit::model {

enum class TargetKind { kArticle, kComment };

struct Target {
  TargetKind kind = TargetKind::kArticle;
  int64_t id = 0;

  static Target Article(int64_t id) { return {TargetKind::kArticle, id}; }
  static Target Comment(int64_t id) { return {TargetKind::kComment, id}; }
  bool is_comment() const { return kind == TargetKind::kComment; }

  friend bool operator==(const Target&, const Target&) = default;
};

}  // namespace plaudit::model
