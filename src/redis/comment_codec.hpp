#pragma once
// A comment's cache hash (keys::Comment): the one place that names its fields. CommentCache
// encodes what it writes and decodes what it reads here, so no layer above spells a field.
#include <array>
#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "model/comment.hpp"
#include "redis/client/reply.hpp"

namespace plaudit::redis {

// The cached fields of one comment, by name, as written (comment_put.lua's field/value pairs).
using CommentFields = std::map<std::string, std::string, std::less<>>;

// The same fields as read: by position (a page reads ~80 comments; a map per comment was a
// large share of its allocations). Absent fields are empty.
// clang-format off
enum CommentField : size_t {
  kCmId, kCmArticle, kCmParent, kCmAuthorId, kCmAuthorUsername, kCmAuthorDisplay,
  kCmReplyToId, kCmReplyToUsername, kCmReplyToDisplay, kCmBody, kCmCreated, kCmUpdated,
  kCmDeleted, kCmReplies, kCmLikes, kCmVer, kCmStatus, kCmHtml, kCmFieldCount
};
// clang-format on
using CommentRecord = std::array<std::string, kCmFieldCount>;

// The field names in CommentField order (what an HMGET of a record asks for).
const std::vector<std::string>& CommentFieldNames();

// Every field, including "ver" (comment_put.lua keeps the newest version). `liked` and
// `replies` are the reader's, not the cache's.
CommentFields EncodeComment(const model::Comment& c);
// nullopt: no id or no article (a corrupt hash). Integers that do not parse read as 0.
// A hash written before "html" existed is not cached (CommentCache's reads say so), so that
// its refill from SQL brings the rendered text (comment_put.lua lets it replace that hash).
std::optional<model::Comment> DecodeComment(CommentRecord&& rec);
// The same straight from an HMGET reply's elements in CommentField order (strings moved
// out; a nil reads as empty): no record in between (a page decodes ~80).
std::optional<model::Comment> DecodeComment(std::span<Reply, kCmFieldCount> fields);

}  // namespace plaudit::redis
