#include "redis/article_codec.hpp"

namespace plaudit::redis {
namespace {

// One pass over (field, value) pairs, from a map or from Redis's order. Absent fields read as
// empty; every integer as ParseIntOr, allow_comments defaulting to 1.
template <class Pairs>
std::optional<model::Article> FromPairs(const Pairs& fields) {
  model::Article a;
  bool has_id = false;
  std::string_view kind, status, allow_comments, published_at;
  for (const auto& [key, value] : fields) {
    const std::string_view k = key;
    if (k == "id") {
      has_id = true;
      a.id = ParseIntOr(value, 0);
    } else if (k == "kind") {
      kind = value;
    } else if (k == "status") {
      status = value;
    } else if (k == "author_id") {
      a.author_id = ParseIntOr(value, 0);
    } else if (k == "author_username") {
      a.author_username = value;
    } else if (k == "author_display") {
      a.author_display_name = value;
    } else if (k == "title") {
      a.title = value;
    } else if (k == "summary") {
      a.summary = value;
    } else if (k == "pinned") {
      a.pinned = ParseIntOr(value, 0) != 0;
    } else if (k == "allow_comments") {
      allow_comments = value;
    } else if (k == "moderation") {
      a.moderation = value;
    } else if (k == "created_at") {
      a.created_at_ms = ParseIntOr(value, 0);
    } else if (k == "updated_at") {
      a.updated_at_ms = ParseIntOr(value, 0);
    } else if (k == "published_at") {
      published_at = value;
    } else if (k == "views") {
      a.view_count = ParseIntOr(value, 0);
    } else if (k == "likes") {
      a.like_count = ParseIntOr(value, 0);
    } else if (k == "comments") {
      a.comment_count = ParseIntOr(value, 0);
    } else if (k == "comments_ver") {
      a.comment_ver = ParseIntOr(value, 0);
    } else if (k == "ver") {
      a.ver = ParseIntOr(value, 0);
    }
  }
  if (!has_id) {
    return std::nullopt;
  }
  auto parsed_kind = model::ParseKind(kind);
  auto parsed_status = model::ParseStatus(status);
  if (a.id <= 0 || !parsed_kind || !parsed_status) {
    return std::nullopt;
  }
  a.kind = *parsed_kind;
  a.status = *parsed_status;
  a.allow_comments = ParseIntOr(allow_comments, 1) != 0;
  if (!published_at.empty()) {
    a.published_at_ms = ParseIntOr(published_at, 0);
  }
  return a;
}

}  // namespace

const std::vector<std::string>& ArticleFieldNames() {
  static const std::vector<std::string> names = {
      "id",           "kind",   "author_id", "author_username", "author_display", "title",
      "summary",      "status", "pinned",    "allow_comments",  "created_at",     "updated_at",
      "published_at", "views",  "likes",     "comments",        "comments_ver",   "moderation"};
  return names;
}

ArticleFields EncodeArticle(const model::Article& a) {
  return {{"id", std::to_string(a.id)},
          {"kind", std::string(model::KindName(a.kind))},
          {"author_id", std::to_string(a.author_id)},
          {"author_username", a.author_username},
          {"author_display", a.author_display_name},
          {"title", a.title},
          {"summary", a.summary},
          {"status", std::string(model::StatusName(a.status))},
          {"pinned", a.pinned ? "1" : "0"},
          {"allow_comments", a.allow_comments ? "1" : "0"},
          {"created_at", std::to_string(a.created_at_ms)},
          {"updated_at", std::to_string(a.updated_at_ms)},
          {"published_at", a.published_at_ms ? std::to_string(*a.published_at_ms) : ""},
          {"views", std::to_string(a.view_count)},
          {"likes", std::to_string(a.like_count)},
          {"comments", std::to_string(a.comment_count)},
          {"comments_ver", std::to_string(a.comment_ver)},
          {"moderation", a.moderation}};
}

std::optional<model::Article> DecodeArticle(const ArticleFields& f) { return FromPairs(f); }

std::optional<model::Article> DecodeArticle(const ArticleFieldList& f) { return FromPairs(f); }

std::optional<model::Article> DecodeAccess(const ArticleFields& f) {
  auto status = f.empty() ? std::nullopt : model::ParseStatus(FieldStr(f, "status"));
  if (!status) {
    return std::nullopt;
  }
  model::Article a;
  a.id = FieldInt(f, "id");
  a.status = *status;
  a.author_id = FieldInt(f, "author_id");
  // Present when the counts were read too (ArticleCache::GetCountsMany).
  a.view_count = FieldInt(f, "views");
  a.comment_count = FieldInt(f, "comments");
  return a;
}

}  // namespace plaudit::redis
