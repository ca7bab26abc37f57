#pragma once
// Comments in Redis (seed 000's ZSET + HASH design, fixed): a HASH per comment, ZSET indexes
// per article (top-level comments by time and by likes) and per top-level comment (its
// replies, the same two orders), and a meta key that says whether the article's comment
// cache is ready or being rebuilt. All keys of one article's comments share its like shard's
// hash tag ({l<article id % 256>}), so one script can write a comment, its parent and their
// index entries atomically, and a comment like can move the comment in its hot index.
// Everything here is a cache of SQL; see comment_put.lua for the versioning that makes
// writes and rebuilds commute, and docs/architecture.md.
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "redis/article_cache.hpp"
#include "redis/client.hpp"

namespace plaudit::redis {

// The cached fields of one comment, by name, as written (see kCommentFields in
// comment_cache.cpp).
using CommentFields = std::map<std::string, std::string, std::less<>>;  // == domain::CachedFields

// The same fields as read: by position (a page reads ~80 comments; a map per comment was a
// large share of its allocations). Absent fields are empty.
enum CommentField : size_t {
  kCmId, kCmArticle, kCmParent, kCmAuthorId, kCmAuthorUsername, kCmAuthorDisplay,
  kCmReplyToId, kCmReplyToUsername, kCmReplyToDisplay, kCmBody, kCmCreated, kCmUpdated,
  kCmDeleted, kCmReplies, kCmLikes, kCmVer, kCmFieldCount
};
using CommentRecord = std::array<std::string, kCmFieldCount>;
// nullopt: not cached.
using CachedComment = std::optional<CommentRecord>;

struct CommentPut {
  int64_t id = 0;
  std::optional<int64_t> parent_id;  // its top-level comment, for a reply
  CommentFields fields;              // every field, including "ver"
};

enum class CommentIndex { kByTime, kByLikes };

class CommentCache {
 public:
  explicit CommentCache(Client& client) : client_(client) {}

  static const std::vector<std::string>& FieldNames();

  // Next comment sequence number (see next_id.lua); nullopt when the sequence is missing.
  Awaitable<Result<std::optional<int64_t>>> NextSeq(int64_t floor);

  // Applies comment states of one article in one atomic script (see comment_put.lua).
  Awaitable<Status> Put(int64_t article_id, const std::vector<CommentPut>& comments);
  // Comments of ONE article (one hash slot) for many ids: one pipeline of HMGETs.
  Awaitable<Result<std::vector<CachedComment>>> GetMany(const std::vector<int64_t>& ids);
  // GetMany with only what places a comment filled in (id, article, parent, deleted, replies,
  // ver; the other fields empty): whether it shows, and on which article, without reading its
  // body. One round trip.
  Awaitable<Result<std::vector<CachedComment>>> GetPlacements(const std::vector<int64_t>& ids);
  // The same, plus the first `replies` reply ids (oldest first) of each (a ZRANGE each), in
  // the same round trip.
  Awaitable<Result<std::pair<std::vector<CachedComment>, std::vector<std::vector<int64_t>>>>>
  GetWithReplies(const std::vector<int64_t>& ids, int64_t replies);

  // A page of an article's top-level comments (parent nullopt) or of a comment's replies.
  // nullopt when the article's comment cache is not ready.
  Awaitable<Result<std::optional<ListPage>>> Page(int64_t article_id,
                                                  std::optional<int64_t> parent,
                                                  CommentIndex index, bool descending,
                                                  int64_t start, int64_t count);
  Awaitable<Result<std::optional<ListPage>>> PageAfter(int64_t article_id,
                                                       std::optional<int64_t> parent,
                                                       CommentIndex index, bool descending,
                                                       int64_t score, int64_t id,
                                                       int64_t count);

  // Rebuild lease: "begin" → ready|busy|go; "renew"/"finish" → ok|lost.
  Awaitable<Result<std::string>> Meta(int64_t article_id, std::string_view op,
                                      const std::string& owner, int64_t lease_ms);
  // Forgets an article's comment cache: the next read rebuilds it from SQL.
  Awaitable<Status> Invalidate(int64_t article_id);
  // The same for every article (SCAN, bounded steps); returns how many were dropped.
  Awaitable<Result<int64_t>> InvalidateAll();

 private:
  Awaitable<Result<std::optional<ListPage>>> RunPage(int64_t article_id,
                                                     std::optional<int64_t> parent,
                                                     CommentIndex index,
                                                     std::vector<std::string> args);
  Client& client_;
};

}  // namespace plaudit::redis
