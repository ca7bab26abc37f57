#include "domain/articles.hpp"

#include <spdlog/spdlog.h>

#include "common/random_id.hpp"
#include "common/time.hpp"
#include "text/sanitizer.hpp"

namespace plaudit::domain {
namespace {

// Sets title/content (sanitised, with the summary) from input; the rest is the caller's.
Status ApplyText(Article& a, const ArticleInput& in) {
  if (in.title) {
    PL_TRY(auto t, NormalizeTitle(*in.title));
    a.title = std::move(t);
  }
  if (in.content) {
    if (in.content->size() > kMaxContentBytes) {
      return Fail(ErrorCode::kInvalidArgument, "content must be at most 512 KiB");
    }
    PL_TRY(auto clean, text::SanitizeHtml(*in.content));
    a.content = std::move(clean.html);
    a.summary = text::Summary(clean.text);
  }
  return {};
}

}  // namespace

ArticleService::ArticleService(sql::ArticleTable& table, sql::ChangeTable& changes,
                               redis::ArticleCache& cache, redis::CacheMarks& marks,
                               LikeService& likes, const WriteFaults& faults)
    : table_(table),
      changes_(changes),
      cache_(cache),
      marks_(marks),
      faults_(faults),
      likes_(likes),
      instance_id_(RandomHexId()),
      unknown_(likes.store(), redis::IdKind::kArticle) {}

Awaitable<Result<int64_t>> ArticleService::AllocateId(bool reseed) {
  int64_t floor = -1;
  if (reseed) {
    PL_CO_TRY(auto max, co_await table_.MaxId());
    floor = max;
  }
  auto id = co_await cache_.NextId(floor);
  PL_CO_CHECK(id);
  if (*id) {
    co_return **id;
  }
  if (reseed) {
    co_return Fail(ErrorCode::kInternal, "id sequence did not resume");
  }
  co_return co_await AllocateId(true);
}

Awaitable<Status> ArticleService::ReseedIds() {
  PL_CO_CHECK(co_await AllocateId(true));
  co_return Status{};
}

Awaitable<Result<Article>> ArticleService::Create(const Principal& who, ArticleInput in) {
  Article a;
  a.kind = in.kind.value_or(HasRole(who.role, Role::kAuthor) ? ArticleKind::kArticle
                                                             : ArticleKind::kPost);
  if (a.kind == ArticleKind::kPage) {
    co_return Fail(ErrorCode::kInvalidArgument, "kind must be article or post");
  }
  if (a.kind == ArticleKind::kArticle && !HasRole(who.role, Role::kAuthor)) {
    co_return Fail(ErrorCode::kPermissionDenied, "only authors may write articles; write a post");
  }
  if (in.pinned.value_or(false) && !HasRole(who.role, Role::kAdmin)) {
    co_return Fail(ErrorCode::kPermissionDenied, "only an admin may pin");
  }
  if (!in.title) {
    co_return Fail(ErrorCode::kInvalidArgument, "field 'title' is required");
  }
  if (!in.content) {
    co_return Fail(ErrorCode::kInvalidArgument, "field 'content' is required");
  }
  PL_CO_CHECK(ApplyText(a, in));
  a.author_id = who.id;
  a.author_username = who.username;
  a.author_display_name = who.display_name;
  a.status = in.status.value_or(ArticleStatus::kDraft);
  a.pinned = in.pinned.value_or(false);
  a.allow_comments = in.allow_comments.value_or(true);
  a.moderation = in.moderation.value_or("");
  a.created_at_ms = a.updated_at_ms = NowMs();
  if (a.status == ArticleStatus::kPublished) {
    a.published_at_ms = a.created_at_ms;
  }

  std::function<Awaitable<Result<int64_t>>(sql::ArticleRow, sql::CacheStamp)> insert =
      [this](sql::ArticleRow row, sql::CacheStamp stamp) -> Awaitable<Result<int64_t>> {
    const int64_t id = row.id;
    PL_CO_CHECK(co_await table_.Insert(std::move(row), stamp));
    co_return id;
  };
  PL_CO_CHECK(co_await Insert(a, std::move(insert)));
  co_return a;
}

Awaitable<Result<int64_t>> ArticleService::Insert(Article& a, Inserter insert) {
  // Checked before an id is taken: a Redis back from an older snapshot hands out ids again
  // until its check resumes the sequence above SQL's (ReseedIds).
  if (!Checked()) {
    PL_CO_CHECK(co_await EnsureChecked());
  }
  auto id = co_await AllocateId(false);
  PL_CO_CHECK(id);
  a.id = *id;
  // Named, not braced, arguments around co_await (GCC 12).
  redis::CacheTarget target = redis::CacheTarget::OfArticle(a.id);
  auto mark = co_await MarkWrite(target);
  PL_CO_CHECK(mark);
  sql::CacheStamp stamp{mark->shard, mark->seq};
  auto inserted = co_await insert(sql::ArticleRow{a}, stamp);
  if (!inserted && inserted.error().code == ErrorCode::kAlreadyExists) {
    // Redis came back with an old sequence: resume above SQL's highest id and retry once.
    spdlog::warn("article id {} already in SQL; reseeding the sequence", a.id);
    co_await UnmarkUnless(*mark, inserted.error());
    id = co_await AllocateId(true);
    PL_CO_CHECK(id);
    a.id = *id;
    target.id = a.id;
    mark = co_await MarkWrite(target);
    PL_CO_CHECK(mark);
    stamp = sql::CacheStamp{mark->shard, mark->seq};
    inserted = co_await insert(sql::ArticleRow{a}, stamp);
  }
  if (!inserted) {
    co_await UnmarkUnless(*mark, inserted.error());
    co_return tl::unexpected(inserted.error());
  }
  if (*inserted != a.id) {
    co_await Unmark(*mark);  // another article holds its place; this one was rolled back
    co_return *inserted;
  }
  a.ver = 1;  // a new row's (migration 013)
  co_await ReflectOrRepairLater(a, /*created=*/true, *mark);
  co_return a.id;
}

Awaitable<Status> ArticleService::Reflect(const Article& a, bool created) {
  // Both steps carry the row's version: a step of an older change that lands later is
  // dropped (article_put.lua, index_update.lua), so the cache ends at the newest committed
  // state whatever order the steps of concurrent writes land in.
  if (faults_.before_article_reflect) {
    co_await faults_.before_article_reflect(a.id);
  }
  const std::string* body = a.content ? &*a.content : nullptr;
  if (created) {
    PL_CO_CHECK(co_await cache_.Create(a, body));
  } else {
    PL_CO_CHECK(co_await cache_.Write(a, body));
  }
  // Also for a draft that was never listed: it repairs a list step an earlier write lost.
  Result<bool> indexed = false;
  if (Listed(a)) {
    indexed = co_await cache_.IndexAdd(a);
  } else {
    indexed = co_await cache_.IndexRemove(a.id, a.ver);
  }
  PL_CO_CHECK(indexed);
  co_return Status{};
}

Awaitable<void> ArticleService::ReflectOrRepairLater(const Article& a, bool created,
                                                     const redis::CacheMark& mark) {
  // The write is committed: it is answered as such whatever Redis does now (a retried POST
  // would duplicate it). A cache Redis could not be told of is repaired from SQL by the next
  // flush pass (RepairPending); until then it may answer the older state.
  if (auto st = co_await Reflect(a, created); !st) {
    spdlog::warn("article {} committed, but its cache step failed ({}); repairing it later", a.id,
                 st.error().message);
    pending_repairs_.Add(a.id);
    co_return;
  }
  co_await Unmark(mark);
}

Awaitable<Result<Article>> ArticleService::Update(const Principal& who, int64_t id,
                                                  ArticleInput in) {
  // The cached article answers who may see it (404 otherwise) and supplies the counters the
  // answer shows (Redis owns views and the like count); the change itself is applied to the
  // row as SQL has it, under its lock, so a concurrent PATCH of other fields is never undone
  // by this one writing back what it read (issue 25, item 1). The checks run again there, on
  // the committed row.
  PL_CO_TRY(auto current, co_await Get(who, id, /*count_view=*/false, /*with_body=*/false));
  std::function<Status(sql::ArticleRow&)> apply =
      [who, in = std::move(in)](sql::ArticleRow& row) -> Status {
    Article& a = row;  // the committed row, changed in place
    if (!CanSee(a, who)) {
      return Fail(ErrorCode::kNotFound, "no such article");
    }
    if (!CanEdit(a, who)) {
      return Fail(ErrorCode::kPermissionDenied, "not your article");
    }
    if (in.kind && *in.kind != a.kind) {
      return Fail(ErrorCode::kInvalidArgument, "field 'kind' cannot be changed");
    }
    // A page's thread stays published: as a draft it would vanish from its page and from
    // every list, reachable by nobody (delete it instead; the page's next comment starts anew).
    if (a.kind == ArticleKind::kPage && in.status && *in.status != a.status) {
      return Fail(ErrorCode::kInvalidArgument, "field 'status' of a page thread cannot be changed");
    }
    if (in.pinned && *in.pinned != a.pinned && !HasRole(who.role, Role::kAdmin)) {
      return Fail(ErrorCode::kPermissionDenied, "only an admin may pin");
    }
    if (auto st = ApplyText(a, in); !st) {
      return st;
    }
    if (in.status) {
      a.status = *in.status;
    }
    if (in.pinned) {
      a.pinned = *in.pinned;
    }
    if (in.allow_comments) {
      a.allow_comments = *in.allow_comments;
    }
    if (in.moderation) {
      a.moderation = *in.moderation;
    }
    a.updated_at_ms = NowMs();
    if (a.status == ArticleStatus::kPublished && !a.published_at_ms) {
      a.published_at_ms = a.updated_at_ms;  // the first publication only
    }
    return {};
  };
  const redis::CacheTarget target = redis::CacheTarget::OfArticle(id);
  PL_CO_TRY(auto mark, co_await MarkWrite(target));
  const sql::CacheStamp stamp{mark.shard, mark.seq};
  auto patched = co_await table_.Patch(id, std::move(apply), stamp);
  if (!patched) {
    co_await UnmarkUnless(mark, patched.error());
    co_return tl::unexpected(patched.error());
  }
  if (!*patched) {
    co_await Unmark(mark);  // no such row: nothing committed
    co_return Fail(ErrorCode::kNotFound, "no such article");
  }
  Article a = std::move((*patched)->row);
  a.view_count = current.view_count;
  a.like_count = current.like_count;
  a.comment_count = current.comment_count;
  a.comment_ver = current.comment_ver;
  a.liked = current.liked;
  co_await ReflectOrRepairLater(a, /*created=*/false, mark);
  co_return a;
}

Awaitable<Status> ArticleService::Delete(const Principal& who, int64_t id) {
  PL_CO_TRY(auto current, co_await Get(who, id, /*count_view=*/false));
  if (!CanEdit(current, who)) {
    co_return Fail(ErrorCode::kPermissionDenied, "not your article");
  }
  const redis::CacheTarget target = redis::CacheTarget::OfArticle(id);
  PL_CO_TRY(auto mark, co_await MarkWrite(target));
  const sql::CacheStamp stamp{mark.shard, mark.seq};
  auto deleted = co_await table_.Delete(id, NowMs(), stamp);
  if (!deleted) {
    co_await UnmarkUnless(mark, deleted.error());
    co_return tl::unexpected(deleted.error());
  }
  // Whether or not SQL still had it (a retried delete), clear every trace from Redis; the
  // deletion mark keeps any write or fill still in flight from caching it again.
  std::vector<int64_t> comment_ids;
  if (*deleted) {
    comment_ids = std::move(**deleted);
  }
  Status removed = co_await cache_.Remove(id, comment_ids);
  if (removed) {
    auto unlisted = co_await cache_.IndexRemove(id, redis::ArticleCache::kDeletedVersion);
    if (!unlisted) {
      removed = tl::unexpected(unlisted.error());
    }
  }
  if (!removed) {
    spdlog::warn("article {} deleted, but its cache step failed ({}); repairing it later", id,
                 removed.error().message);
    pending_repairs_.Add(id);
  } else {
    co_await Unmark(mark);
  }
  co_return Status{};
}

}  // namespace plaudit::domain
