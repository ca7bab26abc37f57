#pragma once
// An article's cache hash (keys::Article): the one place that names its fields. ArticleCache
// encodes what it writes and decodes what it reads here, so no layer above spells a field.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/article.hpp"
#include "redis/fields.hpp"

namespace plaudit::redis {

// The cached fields of one article, by name (the order article_view.lua returns them in is
// ArticleFieldNames()).
using ArticleFields = CachedFields;
// The same as (field, value) pairs in Redis's order: what a list page reads, walked once
// instead of built into a map and searched per name (both showed in its profile).
using ArticleFieldList = std::vector<std::pair<std::string, std::string>>;

const std::vector<std::string>& ArticleFieldNames();

// Every field but the body (a STRING of its own) and the version (article_put.lua's ARGV).
ArticleFields EncodeArticle(const model::Article& a);
// Absent fields read as empty, every integer as ParseIntOr (0), allow_comments defaulting to
// true. nullopt: no id, a non-positive id, or an unknown kind or status (a corrupt hash).
std::optional<model::Article> DecodeArticle(const ArticleFields& f);
std::optional<model::Article> DecodeArticle(const ArticleFieldList& f);
// Just who may see it (id, status, author_id: the fields GetAccess reads), and the view and
// comment counts when `f` has them (GetCountsMany's); nullopt when the status is not one
// (absent: not cached, or corrupt).
std::optional<model::Article> DecodeAccess(const ArticleFields& f);

}  // namespace plaudit::redis
