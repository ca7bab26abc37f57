#include "model/article.hpp"

#include "common/enum_names.hpp"

namespace plaudit::model {
namespace {

constexpr NameTable<ArticleKind, 3> kKindNames = {{
    {ArticleKind::kArticle, "article"},
    {ArticleKind::kPost, "post"},
    {ArticleKind::kPage, "page"},
}};

constexpr NameTable<ArticleStatus, 2> kStatusNames = {{
    {ArticleStatus::kDraft, "draft"},
    {ArticleStatus::kPublished, "published"},
}};

}  // namespace

std::string_view KindName(ArticleKind k) { return NameOf(kKindNames, k, "post"); }

std::optional<ArticleKind> ParseKind(std::string_view s) { return ValueNamed(kKindNames, s); }

std::string_view StatusName(ArticleStatus s) { return NameOf(kStatusNames, s, "draft"); }

std::optional<ArticleStatus> ParseStatus(std::string_view s) { return ValueNamed(kStatusNames, s); }

}  // namespace plaudit::model
