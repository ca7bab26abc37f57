#include "redis/comment_codec.hpp"

#include <charconv>
#include <string_view>
#include <utility>

#include "redis/fields.hpp"

namespace plaudit::redis {
namespace {

int64_t RecordInt(std::string_view v) {
  if (auto n = ShortDecimal(v)) {
    return *n;
  }
  if (v.empty()) {
    return 0;
  }
  int64_t out = 0;
  auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  return ec == std::errc() ? out : 0;
}

std::string OptionalId(const std::optional<int64_t>& id) {
  return id ? std::to_string(*id) : std::string();
}

}  // namespace

// A function-local static: built on first use, where a throw (it allocates) can be caught,
// not during static initialization.
const std::vector<std::string>& CommentFieldNames() {
  // In CommentField order.
  static const std::vector<std::string> names = {"id",
                                                 "article",
                                                 "parent",
                                                 "author_id",
                                                 "author_username",
                                                 "author_display",
                                                 "reply_to_id",
                                                 "reply_to_username",
                                                 "reply_to_display",
                                                 "body",
                                                 "created",
                                                 "updated",
                                                 "deleted",
                                                 "replies",
                                                 "likes",
                                                 "ver",
                                                 "status",
                                                 "html"};
  return names;
}

CommentFields EncodeComment(const model::Comment& c) {
  std::optional<int64_t> reply_to_id;
  if (c.reply_to) {
    reply_to_id = c.reply_to->id;
  }
  return {{"id", std::to_string(c.id)},
          {"article", std::to_string(c.article_id)},
          {"parent", OptionalId(c.parent_id)},
          {"author_id", std::to_string(c.author.id)},
          {"author_username", c.author.username},
          {"author_display", c.author.display_name},
          {"reply_to_id", OptionalId(reply_to_id)},
          {"reply_to_username", c.reply_to ? c.reply_to->username : std::string()},
          {"reply_to_display", c.reply_to ? c.reply_to->display_name : std::string()},
          {"body", c.body},
          {"created", std::to_string(c.created_at_ms)},
          {"updated", std::to_string(c.updated_at_ms)},
          {"deleted", c.deleted ? "1" : "0"},
          {"replies", std::to_string(c.reply_count)},
          {"likes", std::to_string(c.like_count)},
          {"ver", std::to_string(c.ver)},
          {"status", std::string(model::CommentStatusName(c.status))},
          {"html", c.html}};
}

namespace {

// `field(i)` is the string of CommentField i, moved from.
template <class Field>
std::optional<model::Comment> Decode(Field field) {
  model::Comment c;
  c.id = RecordInt(field(kCmId));
  c.article_id = RecordInt(field(kCmArticle));
  if (c.id <= 0 || c.article_id <= 0) {
    return std::nullopt;
  }
  if (int64_t p = RecordInt(field(kCmParent)); p > 0) {
    c.parent_id = p;
  }
  c.author = {RecordInt(field(kCmAuthorId)), std::move(field(kCmAuthorUsername)),
              std::move(field(kCmAuthorDisplay))};
  if (int64_t r = RecordInt(field(kCmReplyToId)); r > 0) {
    c.reply_to = model::CommentUser{r, std::move(field(kCmReplyToUsername)),
                                    std::move(field(kCmReplyToDisplay))};
  }
  c.body = std::move(field(kCmBody));
  c.created_at_ms = RecordInt(field(kCmCreated));
  c.updated_at_ms = RecordInt(field(kCmUpdated));
  c.deleted = RecordInt(field(kCmDeleted)) != 0;
  c.reply_count = RecordInt(field(kCmReplies));
  c.like_count = RecordInt(field(kCmLikes));
  c.ver = RecordInt(field(kCmVer));
  // Absent in a hash an earlier release wrote: every comment was approved then. Unknown: held,
  // never shown by mistake.
  c.status = model::ParseCommentStatus(field(kCmStatus)).value_or(model::CommentStatus::kPending);
  c.html = std::move(field(kCmHtml));
  return c;
}

}  // namespace

std::optional<model::Comment> DecodeComment(CommentRecord&& rec) {
  return Decode([&rec](size_t i) -> std::string& { return rec[i]; });
}

std::optional<model::Comment> DecodeComment(std::span<Reply, kCmFieldCount> fields) {
  return Decode([fields](size_t i) -> std::string& { return fields[i].str; });
}

}  // namespace plaudit::redis
