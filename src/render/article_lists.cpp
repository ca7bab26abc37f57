// GET /articles (the published list) through the page cache (render/page_cache.hpp). A kept
// page is served while the versions it was rendered under have not moved: the lists' (its
// index entries) and those of its articles' shards (their fields, like and comment counts),
// read in one command; its view counts may lag by --list-views-max-age-ms (their own
// versions, read in the same command, say whether they moved). So a read shows every like,
// comment, edit or (un)publishing acknowledged before it started, as a render would
// (docs/architecture.md "Rendered pages"). A 304 needs nothing more; a signed-in reader gets
// the same bytes with its own `liked` flags written in.
#include "render/article_text.hpp"
#include "render/renderer.hpp"

namespace plaudit::render {

struct ListOrigin {
  domain::ArticleService::ListBasis basis;
  domain::ArticleService::ListVersion version;
};

namespace {

using http::Request;
using http::Response;
using Service = domain::ArticleService;

// Names the JSON shape in the ETag (a release that writes lists differently must not have a
// browser's older copy confirmed by a 304); the rest of the tag names the bytes.
constexpr std::string_view kRenderFormat = "l1";

// What names a page of the list (the view of everyone: signed-in readers merge their likes).
std::string ListKey(std::optional<domain::ArticleKind> kind, const domain::PageRequest& p) {
  std::string key = "l/";
  key += kind ? domain::KindName(*kind) : std::string_view("all");
  key += '/';
  if (p.cursor) {
    key += 'k';
    key += *p.cursor;
  } else {
    key += std::to_string(p.page);
  }
  key += '/';
  key += std::to_string(p.size);
  return key;
}

size_t BytesOf(const ListOrigin& o) {
  return sizeof(ListOrigin) + o.basis.index.entries.size() * sizeof(redis::ListEntry) +
         o.basis.index.version.size() + o.version.lists.size() + o.version.articles.size() +
         o.version.views.size();
}

}  // namespace

Awaitable<Result<Response>> Renderer::FreshList(const Request& req,
                                                const std::optional<domain::Principal>& viewer,
                                                std::optional<domain::ArticleKind> kind,
                                                const domain::PageRequest& paging) {
  PL_CO_TRY(auto list,
            co_await articles_.List(viewer, Service::ListFilter::kPublished, kind, paging));
  Response r;
  r.body = ArticlePageText(list, paging);
  if (viewer) {
    AddCacheHeaders(r, req, false);
    co_return r;
  }
  // The same tag a kept page of these bytes has: a 304 confirms only identical bytes.
  const std::string etag = ContentEtag(kRenderFormat, r.body);
  if (auto not_modified = NotModified(req, etag)) {
    co_return std::move(*not_modified);
  }
  r.headers.emplace_back("ETag", etag);
  AddCacheHeaders(r, req, true);
  co_return r;
}

Awaitable<Result<Response>> Renderer::ArticleList(const Request& req,
                                                  const std::optional<domain::Principal>& viewer,
                                                  std::optional<domain::ArticleKind> kind,
                                                  const domain::PageRequest& paging) {
  if (!cache_.enabled()) {
    co_return co_await FreshList(req, viewer, kind, paging);
  }
  // Before any version is read: the age of a page counts from here (views lag from then).
  const int64_t started = SteadyMs();
  const std::string key = ListKey(kind, paging);
  std::shared_ptr<RenderedPage> page = cache_.Peek(key);
  const std::shared_ptr<const ListOrigin> origin = page ? page->list : nullptr;
  std::optional<Service::ListVersion> version;
  bool hit = false;
  if (origin) {
    PL_CO_TRY(version, co_await articles_.PublishedListVersion(origin->basis.ids()));
    const int64_t age = started - page->rendered_ms;
    hit = version && version->Id() == origin->version.Id() && age < kKeptAtMostMs &&
          (version->views == origin->version.views || age < options_.list_views_max_age_ms);
  }
  cache_.Record(hit);
  if (!hit) {
    Service::ListBasis basis;
    if (origin && version && version->lists == origin->version.lists) {
      basis = origin->basis;  // the lists have not moved: the same index entries
    } else {
      PL_CO_TRY(auto read, co_await articles_.PublishedListBasis(kind, paging));
      basis = std::move(read.basis);
      version = std::move(read.version);
    }
    if (!version) {
      // The Redis connection changed under the reads (a Redis that came back may repeat
      // versions), or which server run it is cannot be told: rendered, kept by no one.
      co_return co_await FreshList(req, viewer, kind, paging);
    }
    // Readers that miss at the same versions share one render, which reads the articles
    // after those versions were read: it shows at least what they name.
    const std::string flight = key + "@" + version->Id() + "/" + version->views;
    std::function<Awaitable<Result<std::shared_ptr<RenderedPage>>>()> render =
        [this, key, paging, started, basis = std::move(basis),
         version = *version]() -> Awaitable<Result<std::shared_ptr<RenderedPage>>> {
      PL_CO_TRY(auto list, co_await articles_.PublishedListFrom(basis, paging));
      RenderedPage p;
      p.version = version.Id();
      p.body = ArticlePageText(list, paging, &p.liked);
      p.etag = ContentEtag(kRenderFormat, p.body);
      const bool keep = !list.items.empty();
      p.rendered_ms = started;
      auto o = std::make_shared<ListOrigin>(ListOrigin{basis, version});
      p.list_bytes = BytesOf(*o);
      p.list = std::move(o);
      // A page past the end is as cheap to render as to find, and there are as many as
      // anyone cares to ask for: not kept, so they cannot push the read ones out.
      if (!keep) {
        co_return std::make_shared<RenderedPage>(std::move(p));
      }
      co_return cache_.Put(key, std::move(p));
    };
    PL_CO_TRY(page, co_await cache_.renders.Do(flight, std::move(render)));
  }
  if (!viewer) {
    if (auto not_modified = NotModified(req, page->etag)) {
      co_return std::move(*not_modified);
    }
    co_return PublicPage(req, key, page);
  }
  co_return co_await ReaderPage(req, viewer->id, page, /*comments=*/false);
}

Response Renderer::PrivateArticleList(const Request& req,
                                      const domain::PageResult<domain::Article>& page,
                                      const domain::PageRequest& paging) const {
  // Written as text (ArticlePageText): the boost::json objects of a 20-article page cost
  // ~40% of a list request's instructions to build, serialise and destroy (callgrind).
  Response r;
  r.body = ArticlePageText(page, paging);
  AddCacheHeaders(r, req, false);  // the caller's own
  return r;
}

}  // namespace plaudit::render
