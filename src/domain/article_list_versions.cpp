// ArticleService's side of the list page cache (render/article_lists.cpp): the versions a page
// of the published list is kept under, and its basis, read in the order that makes a
// rendered page show at least what its version names:
//   1. the lists' version, in the same script as the index page (list_page.lua);
//   2. the versions of the page's articles' shards (their fields, like and comment counts,
//      and view counts), after the index named them;
//   3. the articles, after those.
// Every change a page shows raises one of these in the same script as the change
// (docs/architecture.md, "Rendered pages").
#include <spdlog/spdlog.h>

#include "domain/articles.hpp"

namespace plaudit::domain {

std::string ArticleService::ListVersion::Id() const {
  std::string id = std::to_string(generation);
  id += ':';
  id += lists;
  id += '/';
  id += articles;
  return id;
}

std::vector<int64_t> ArticleService::ListBasis::ids() const {
  std::vector<int64_t> out;
  out.reserve(index.entries.size());
  for (const auto& e : index.entries) {
    out.push_back(e.id);
  }
  return out;
}

Awaitable<Result<std::optional<std::string>>> ArticleService::ServerRun(uint64_t generation) {
  if (run_generation_ != generation) {
    auto run = co_await cache_.ServerRunId();
    if (!run && run.error().code == ErrorCode::kInternal) {
      // Redis answered, but not with a run_id (INFO refused by an ACL or a proxy): pages are
      // rendered afresh on this connection instead of failing (said once per connection).
      if (run_refused_generation_ != generation) {
        run_refused_generation_ = generation;
        spdlog::warn("cannot tell the redis-server run ({}): pages are not kept",
                     run.error().message);
      }
      co_return std::optional<std::string>{};
    }
    PL_CO_CHECK(run);
    // Only if the reply came on that connection: a reconnect meanwhile may be another server.
    if (cache_.Generation() != generation) {
      co_return std::optional<std::string>{};
    }
    run_ = run->substr(0, 16);
    run_generation_ = generation;
  }
  co_return std::optional<std::string>(run_);
}

Awaitable<Result<std::optional<ArticleService::ListVersion>>> ArticleService::PublishedListVersion(
    const std::vector<int64_t>& ids) {
  using Version = std::optional<ListVersion>;
  if (!Checked()) {
    PL_CO_CHECK(co_await EnsureChecked());
  }
  // One read for the requests of a page that arrived before it was sent (version_reads_
  // never hands a request a read sent before it arrived). The generation is read first: a
  // reconnect before the reply makes the versions no kept page's.
  std::string key;
  for (int64_t id : ids) {
    key += std::to_string(id);
    key += ',';
  }
  std::function<Awaitable<Result<VersionsRead>>()> load =
      [this, ids]() -> Awaitable<Result<VersionsRead>> {
    VersionsRead read;
    read.generation = cache_.Generation();
    PL_CO_TRY(read.versions, co_await cache_.Versions(ids));
    co_return read;
  };
  PL_CO_TRY(VersionsRead read, co_await version_reads_.Do(std::move(key), std::move(load)));
  if (cache_.Generation() != read.generation) {
    co_return Version{};
  }
  PL_CO_TRY(auto run, co_await ServerRun(read.generation));
  if (!run) {
    co_return Version{};
  }
  co_return Version(ListVersion{read.generation, *run + "." + read.versions.lists,
                                std::move(read.versions.articles), std::move(read.versions.views)});
}

Awaitable<Result<ArticleService::VersionedBasis>> ArticleService::PublishedListBasis(
    std::optional<ArticleKind> kind, const PageRequest& req) {
  const uint64_t generation = cache_.Generation();
  PL_CO_TRY(auto run, co_await ServerRun(generation));
  VersionedBasis out;
  PL_CO_TRY(out.basis.index, co_await IndexPage(kind, req));
  PL_CO_TRY(auto read, co_await cache_.Versions(out.basis.ids()));
  // The lists' version is the one read with the index (the MGET's may be newer).
  if (run && cache_.Generation() == generation) {
    out.version = ListVersion{generation, *run + "." + out.basis.index.version,
                              std::move(read.articles), std::move(read.views)};
  }
  co_return out;
}

Awaitable<Result<PageResult<Article>>> ArticleService::PublishedListFrom(const ListBasis& basis,
                                                                         const PageRequest& req) {
  PL_CO_TRY(auto page, co_await PageOf(basis.index, req));
  PL_CO_CHECK(co_await FillLikes(0, page.items));
  co_return page;
}

}  // namespace plaudit::domain
