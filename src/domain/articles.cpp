#include "domain/articles.hpp"

#include <sodium.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "common/time.hpp"
#include "common/when_all.hpp"
#include "domain/cursor.hpp"
#include "domain/fields.hpp"
#include "text/sanitizer.hpp"

namespace plaudit::domain {
namespace {

std::string ListName(std::optional<ArticleKind> kind) {
  return kind ? std::string(KindName(*kind)) : std::string("all");
}

int64_t ScoreOf(const Article& a) {
  return redis::ArticleCache::ListScore(a.pinned, a.published_at_ms.value_or(0));
}

bool Listed(const Article& a) { return a.status == ArticleStatus::kPublished; }

}  // namespace

redis::ArticleFields ToFields(const Article& a) {
  return {{"id", std::to_string(a.id)},
          {"kind", std::string(KindName(a.kind))},
          {"author_id", std::to_string(a.author_id)},
          {"author_username", a.author_username},
          {"author_display", a.author_display_name},
          {"title", a.title},
          {"summary", a.summary},
          {"status", std::string(StatusName(a.status))},
          {"pinned", a.pinned ? "1" : "0"},
          {"allow_comments", a.allow_comments ? "1" : "0"},
          {"created_at", std::to_string(a.created_at_ms)},
          {"updated_at", std::to_string(a.updated_at_ms)},
          {"published_at", a.published_at_ms ? std::to_string(*a.published_at_ms) : ""},
          {"views", std::to_string(a.view_count)},
          {"likes", std::to_string(a.like_count)},
          {"comments", std::to_string(a.comment_count)},
          {"comments_ver", std::to_string(a.comment_ver)}};
}

namespace {

// One pass over (field, value) pairs, from a map or from Redis's order. Absent fields read as
// empty; every integer as ParseIntOr, allow_comments defaulting to 1.
template <class Pairs>
std::optional<Article> FromPairs(const Pairs& fields) {
  Article a;
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
  if (!has_id) return std::nullopt;
  auto parsed_kind = ParseKind(kind);
  auto parsed_status = ParseStatus(status);
  if (a.id <= 0 || !parsed_kind || !parsed_status) return std::nullopt;
  a.kind = *parsed_kind;
  a.status = *parsed_status;
  a.allow_comments = ParseIntOr(allow_comments, 1) != 0;
  if (!published_at.empty()) a.published_at_ms = ParseIntOr(published_at, 0);
  return a;
}

}  // namespace

std::optional<Article> FromFields(const redis::ArticleFields& f) { return FromPairs(f); }

std::optional<Article> FromFields(const redis::ArticleFieldList& f) { return FromPairs(f); }

Article FromRow(const sql::ArticleRow& r) {
  Article a;
  a.id = r.id;
  a.kind = ParseKind(r.kind).value_or(ArticleKind::kPost);
  a.author_id = r.author_id;
  a.author_username = r.author_username;
  a.author_display_name = r.author_display_name;
  a.title = r.title;
  a.summary = r.summary;
  a.status = ParseStatus(r.status).value_or(ArticleStatus::kDraft);
  a.pinned = r.pinned;
  a.allow_comments = r.allow_comments;
  a.created_at_ms = r.created_at_ms;
  a.updated_at_ms = r.updated_at_ms;
  a.published_at_ms = r.published_at_ms;
  a.view_count = r.view_count;
  a.like_count = r.like_count;
  a.comment_count = r.comment_count;
  a.comment_ver = r.comment_ver;
  a.ver = r.ver;
  return a;
}

namespace {

sql::ArticleRow ToRow(const Article& a) {
  sql::ArticleRow r;
  r.id = a.id;
  r.kind = std::string(KindName(a.kind));
  r.author_id = a.author_id;
  r.title = a.title;
  r.summary = a.summary;
  r.content = a.content.value_or("");
  r.status = std::string(StatusName(a.status));
  r.pinned = a.pinned;
  r.allow_comments = a.allow_comments;
  r.created_at_ms = a.created_at_ms;
  r.updated_at_ms = a.updated_at_ms;
  r.published_at_ms = a.published_at_ms;
  return r;
}

// Sets title/content (sanitised, with the summary) from input; the rest is the caller's.
Status ApplyText(Article& a, const ArticleInput& in) {
  if (in.title) {
    auto t = NormalizeTitle(*in.title);
    if (!t) return tl::unexpected(t.error());
    a.title = std::move(*t);
  }
  if (in.content) {
    if (in.content->size() > kMaxContentBytes) {
      return Fail(ErrorCode::kInvalidArgument, "content must be at most 512 KiB");
    }
    auto clean = text::SanitizeHtml(*in.content);
    if (!clean) return tl::unexpected(clean.error());
    a.content = std::move(clean->html);
    a.summary = text::Summary(clean->text);
  }
  return {};
}

}  // namespace

ArticleService::ArticleService(sql::ArticleTable& table, sql::ChangeTable& changes,
                               redis::ArticleCache& cache, redis::CacheMarks& marks,
                               LikeService& likes)
    : table_(table), changes_(changes), cache_(cache), marks_(marks), likes_(likes) {
  unsigned char raw[8];
  randombytes_buf(raw, sizeof(raw));
  char hex[17];
  sodium_bin2hex(hex, sizeof(hex), raw, sizeof(raw));
  instance_id_ = hex;
}

Awaitable<Result<int64_t>> ArticleService::AllocateId(bool reseed) {
  int64_t floor = -1;
  if (reseed) {
    auto max = co_await table_.MaxId();
    if (!max) co_return tl::unexpected(max.error());
    floor = *max;
  }
  auto id = co_await cache_.NextId(floor);
  if (!id) co_return tl::unexpected(id.error());
  if (*id) co_return **id;
  if (reseed) co_return Fail(ErrorCode::kInternal, "id sequence did not resume");
  co_return co_await AllocateId(true);
}

Awaitable<Status> ArticleService::ReseedIds() {
  auto id = co_await AllocateId(true);
  if (!id) co_return tl::unexpected(id.error());
  co_return Status{};
}

Awaitable<Result<Article>> ArticleService::Create(const Principal& who, ArticleInput in) {
  // Checked before an id is taken: a Redis back from an older snapshot hands out ids again
  // until its check resumes the sequence above SQL's (ReseedIds).
  if (!Checked()) {
    if (auto st = co_await EnsureChecked(); !st) co_return tl::unexpected(st.error());
  }
  Article a;
  a.kind = in.kind.value_or(HasRole(who.role, Role::kAuthor) ? ArticleKind::kArticle
                                                             : ArticleKind::kPost);
  if (a.kind == ArticleKind::kArticle && !HasRole(who.role, Role::kAuthor)) {
    co_return Fail(ErrorCode::kPermissionDenied, "only authors may write articles; write a post");
  }
  if (in.pinned.value_or(false) && !HasRole(who.role, Role::kAdmin)) {
    co_return Fail(ErrorCode::kPermissionDenied, "only an admin may pin");
  }
  if (!in.title) co_return Fail(ErrorCode::kInvalidArgument, "field 'title' is required");
  if (!in.content) co_return Fail(ErrorCode::kInvalidArgument, "field 'content' is required");
  if (auto st = ApplyText(a, in); !st) co_return tl::unexpected(st.error());
  a.author_id = who.id;
  a.author_username = who.username;
  a.author_display_name = who.display_name;
  a.status = in.status.value_or(ArticleStatus::kDraft);
  a.pinned = in.pinned.value_or(false);
  a.allow_comments = in.allow_comments.value_or(true);
  a.created_at_ms = a.updated_at_ms = NowMs();
  if (a.status == ArticleStatus::kPublished) a.published_at_ms = a.created_at_ms;

  auto id = co_await AllocateId(false);
  if (!id) co_return tl::unexpected(id.error());
  a.id = *id;
  // Named, not braced, arguments around co_await (GCC 12).
  redis::CacheTarget target{'a', a.id};
  auto mark = co_await MarkWrite(target);
  if (!mark) co_return tl::unexpected(mark.error());
  sql::CacheStamp stamp{mark->shard, mark->seq};
  auto inserted = co_await table_.Insert(ToRow(a), stamp);
  if (!inserted && inserted.error().code == ErrorCode::kAlreadyExists) {
    // Redis came back with an old sequence: resume above SQL's highest id and retry once.
    spdlog::warn("article id {} already in SQL; reseeding the sequence", a.id);
    co_await UnmarkUnless(*mark, inserted.error());
    id = co_await AllocateId(true);
    if (!id) co_return tl::unexpected(id.error());
    a.id = *id;
    target.id = a.id;
    mark = co_await MarkWrite(target);
    if (!mark) co_return tl::unexpected(mark.error());
    stamp = sql::CacheStamp{mark->shard, mark->seq};
    inserted = co_await table_.Insert(ToRow(a), stamp);
  }
  if (!inserted) {
    co_await UnmarkUnless(*mark, inserted.error());
    co_return tl::unexpected(inserted.error());
  }
  a.ver = 1;  // a new row's (migration 013)
  co_await ReflectOrRepairLater(a, /*created=*/true, *mark);
  co_return a;
}

Awaitable<Status> ArticleService::Reflect(const Article& a, bool created) {
  // Both steps carry the row's version: a step of an older change that lands later is
  // dropped (article_put.lua, index_update.lua), so the cache ends at the newest committed
  // state whatever order the steps of concurrent writes land in.
  if (before_reflect) co_await before_reflect(a.id);
  const std::string* body = a.content ? &*a.content : nullptr;
  const redis::ArticleFields fields = ToFields(a);
  if (created) {
    if (auto st = co_await cache_.Create(a.id, fields, a.ver, body); !st) co_return st;
  } else {
    if (auto st = co_await cache_.Write(a.id, fields, a.ver, body); !st) co_return st;
  }
  // Also for a draft that was never listed: it repairs a list step an earlier write lost.
  Result<bool> indexed = false;
  if (Listed(a)) {
    indexed = co_await cache_.IndexAdd(KindName(a.kind), a.id, ScoreOf(a), a.ver);
  } else {
    indexed = co_await cache_.IndexRemove(a.id, a.ver);
  }
  if (!indexed) co_return tl::unexpected(indexed.error());
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

Awaitable<Status> ArticleService::EnsureChecked() {
  if (!redis_checked || redis_checked()) co_return Status{};
  co_return co_await check_redis();
}

Awaitable<Result<redis::CacheMark>> ArticleService::MarkWrite(redis::CacheTarget target) {
  for (int attempt = 0; attempt < 3; ++attempt) {
    // Checked first: a seq taken on an older Redis would lift it above SQL's and hide it. A
    // read goes on when the check could not read SQL; a write needs SQL anyway, so it waits.
    if (attempt == 0) {
      if (!Checked()) {
        if (auto st = co_await EnsureChecked(); !st) co_return tl::unexpected(st.error());
      }
    } else if (recheck_redis) {
      if (auto st = co_await recheck_redis(); !st) co_return tl::unexpected(st.error());
    }
    if (redis_checked && !redis_checked()) {
      co_return Fail(ErrorCode::kUnavailable, "redis is not yet checked against SQL; retry");
    }
    if (attempt > 0) marks_.Vouch();
    auto mark = co_await marks_.Mark(target);
    if (!mark) co_return tl::unexpected(mark.error());
    if (*mark) co_return std::move(**mark);
  }
  co_return Fail(ErrorCode::kUnavailable, "redis is not yet checked against SQL; retry");
}

Awaitable<void> ArticleService::UnmarkUnless(const redis::CacheMark& mark, const Error& e) {
  // A lost connection or a failed COMMIT may have committed: the mark stays, and a check
  // repairs the cache from SQL (safe either way). A refusal changed nothing.
  switch (e.code) {
    case ErrorCode::kNotFound:
    case ErrorCode::kPermissionDenied:
    case ErrorCode::kInvalidArgument:
    case ErrorCode::kAlreadyExists:
      co_await Unmark(mark);
      break;
    default:
      break;
  }
}

Awaitable<void> ArticleService::Unmark(const redis::CacheMark& mark) {
  // A mark left behind is repaired from SQL by a later check: harmless, so only logged.
  if (auto st = co_await marks_.Unmark(mark); !st) {
    spdlog::warn("could not clear cache mark {} ({})", mark.member, st.error().message);
  }
}

Awaitable<Status> ArticleService::Repair(int64_t id) {
  auto row = co_await table_.Find(id, /*with_content=*/true);
  if (!row) co_return tl::unexpected(row.error());
  if (!*row) {
    // No row: deleted, or a create not committed yet (a check repairs the marks of writes
    // in progress elsewhere when it meets a new connection). Only a deletion leaves the
    // floor that refuses every later fill and write; a create's own step caches it.
    auto deleted = co_await table_.WasDeleted(id);
    if (!deleted) co_return tl::unexpected(deleted.error());
    if (!*deleted) co_return Status{};
    const std::vector<int64_t> no_comments;
    if (auto st = co_await cache_.Remove(id, no_comments); !st) co_return st;
    auto removed = co_await cache_.IndexRemove(id, redis::ArticleCache::kDeletedVersion);
    if (!removed) co_return tl::unexpected(removed.error());
    co_return Status{};
  }
  Article a = FromRow(**row);
  a.content = std::move((*row)->content);
  co_return co_await Reflect(a, /*created=*/false);
}

Awaitable<Result<bool>> ArticleService::MarkSettled(const redis::CacheMark& mark) {
  if (mark.age_us > kAbandonUs) co_return true;
  auto row = co_await table_.Find(mark.target.id, /*with_content=*/false);
  if (!row) co_return tl::unexpected(row.error());
  if (!*row) co_return co_await table_.WasDeleted(mark.target.id);  // else: a create in flight
  const int64_t committed = mark.target.kind == 'a' ? (*row)->cache_seq : (*row)->thread_seq;
  co_return committed >= mark.seq;
}

Awaitable<Result<int64_t>> ArticleService::RepairPending() {
  std::function<Awaitable<Status>(int64_t)> repair = [this](int64_t id) { return Repair(id); };
  co_return co_await pending_repairs_.Retry(std::move(repair));
}

Awaitable<Result<std::optional<Article>>> ArticleService::FillFromSql(
    int64_t id, bool with_content, std::optional<PrefetchedRow> first) {
  // The shard's birth mark is read before the row: if the dataset is emptied (FLUSHALL)
  // after that, the mark changes and the fill writes nothing, so a row read before a delete
  // whose floor the FLUSHALL took can never be cached (article_put.lua). Then SQL is read
  // again, after a check when the mark is gone. A Redis restarted meanwhile (the client
  // reconnected) may have lost a floor while keeping the mark (an AOF everysec crash): the
  // row is read again then too.
  for (int attempt = 0; attempt < 4; ++attempt) {
    std::optional<PrefetchedRow> got = std::move(first);
    first.reset();
    if (!got) {
      const uint64_t generation = cache_.Generation();
      auto token = co_await cache_.FillToken(id);
      if (!token) co_return tl::unexpected(token.error());
      if (*token) {
        auto found = co_await table_.Find(id, with_content);
        if (!found) co_return tl::unexpected(found.error());
        if (!*found) co_return std::optional<Article>{};
        got = PrefetchedRow{std::move(**token), std::move(**found), generation};
      }
    }
    using State = redis::ArticleCache::Filled::State;
    State state = State::kUnchecked;
    if (got && got->generation != cache_.Generation()) {
      state = State::kStale;  // reconnected since the mark was read
    } else if (got) {
      Article a = FromRow(got->row);
      if (with_content) a.content = std::move(got->row.content);
      const redis::ArticleFields fields = ToFields(a);
      const std::string* body = a.content ? &*a.content : nullptr;
      auto filled = co_await cache_.Fill(id, fields, a.ver, got->token, body);
      if (!filled) co_return tl::unexpected(filled.error());
      state = filled->state;
      if (state == State::kGone) co_return std::optional<Article>{};
      if (state == State::kFilled) {
        // The hash as it is now: a racing write or fill may have cached a newer version,
        // and views counted since the row was read are there.
        auto live = FromFields(filled->fields);
        if (!live) co_return std::optional<Article>(std::move(a));
        if (live->ver == a.ver) live->content = std::move(a.content);
        co_return std::optional<Article>(std::move(*live));
      }
    }
    if (state == State::kStale) continue;  // read SQL again: it has the newer row
    if (!recheck_redis) break;
    if (auto st = co_await recheck_redis(); !st) co_return tl::unexpected(st.error());
  }
  co_return Fail(ErrorCode::kUnavailable, "the article cache did not settle; retry");
}

Awaitable<Result<Article>> ArticleService::LoadIntoCache(int64_t id) {
  std::function<Awaitable<Result<Article>>()> loader = [this, id]() -> Awaitable<Result<Article>> {
    auto filled = co_await FillFromSql(id, /*with_content=*/true, std::nullopt);
    if (!filled) co_return tl::unexpected(filled.error());
    if (!*filled) co_return Fail(ErrorCode::kNotFound, "no such article");
    co_return std::move(**filled);
  };
  co_return co_await loads_.Do(id, std::move(loader));
}

Awaitable<Result<redis::ArticleCache::Cached>> ArticleService::Cached(int64_t id, bool count_view,
                                                                      bool with_body) {
  if (!Checked()) {
    if (auto st = co_await EnsureChecked(); !st) co_return tl::unexpected(st.error());
  }
  if (count_view && views_checked && !views_checked()) {
    if (auto st = co_await check_views(); !st) co_return tl::unexpected(st.error());
  }
  auto cached = co_await cache_.Get(id, count_view, with_body);
  if (!cached) co_return tl::unexpected(cached.error());
  if (!*cached) {
    auto loaded = co_await LoadIntoCache(id);
    if (!loaded) co_return tl::unexpected(loaded.error());
    // Read again through Redis so the view is counted by the same atomic script.
    cached = co_await cache_.Get(id, count_view, with_body);
    if (!cached) co_return tl::unexpected(cached.error());
    if (!*cached) co_return Fail(ErrorCode::kUnavailable, "article cache did not fill");
  }
  co_return std::move(**cached);
}

Awaitable<Result<Article>> ArticleService::Peek(int64_t id) {
  if (!Checked()) {
    if (auto st = co_await EnsureChecked(); !st) co_return tl::unexpected(st.error());
  }
  auto fields = co_await cache_.GetAccess(id);
  if (!fields) co_return tl::unexpected(fields.error());
  if (fields->empty()) {
    auto loaded = co_await LoadIntoCache(id);
    if (!loaded) co_return tl::unexpected(loaded.error());
    co_return *loaded;
  }
  auto status = ParseStatus((*fields)["status"]);
  if (!status) co_return Fail(ErrorCode::kInternal, "corrupt cached article");
  Article a;
  a.id = FieldInt(*fields, "id");
  a.status = *status;
  a.author_id = FieldInt(*fields, "author_id");
  co_return a;
}

Awaitable<Result<std::vector<bool>>> ArticleService::VisibleMany(
    const std::optional<Principal>& viewer, std::vector<int64_t> ids) {
  // Each article once (ids <= 0 name none). Published ones (nearly all, on a real page) are
  // answered by one ZMSCORE of the published index; only the others cost more: their cached
  // access fields in one pipelined round trip, and what is not cached through Peek (SQL).
  std::vector<int64_t> unique;
  unique.reserve(ids.size());
  for (int64_t id : ids) {
    if (id > 0) unique.push_back(id);
  }
  std::sort(unique.begin(), unique.end());
  unique.erase(std::unique(unique.begin(), unique.end()), unique.end());
  std::vector<bool> seen(unique.size(), false);  // by position in `unique`
  if (!unique.empty()) {
    if (!Checked()) {
      if (auto st = co_await EnsureChecked(); !st) co_return tl::unexpected(st.error());
    }
    auto listed = co_await cache_.InPublishedIndex(unique);
    if (!listed) co_return tl::unexpected(listed.error());
    std::vector<size_t> unlisted;
    for (size_t i = 0; i < unique.size(); ++i) {
      if ((*listed)[i]) {
        seen[i] = true;
      } else {
        unlisted.push_back(i);
      }
    }
    if (!unlisted.empty()) {
      std::vector<int64_t> unlisted_ids;
      for (size_t i : unlisted) unlisted_ids.push_back(unique[i]);
      auto cached = co_await cache_.GetAccessMany(unlisted_ids);
      if (!cached) co_return tl::unexpected(cached.error());
      std::vector<size_t> missed;
      for (size_t j = 0; j < unlisted.size(); ++j) {
        redis::ArticleFields& f = (*cached)[j];
        auto status = f.empty() ? std::nullopt : ParseStatus(f["status"]);
        if (!status) {
          missed.push_back(unlisted[j]);
          continue;
        }
        Article a;
        a.id = unique[unlisted[j]];
        a.status = *status;
        a.author_id = FieldInt(f, "author_id");
        seen[unlisted[j]] = CanSee(a, viewer);
      }
      std::vector<Awaitable<Result<Article>>> peeks;
      for (size_t i : missed) peeks.push_back(Peek(unique[i]));
      auto loaded = co_await WhenAll(std::move(peeks));
      for (size_t j = 0; j < missed.size(); ++j) {
        const auto& a = loaded[j];
        if (!a && a.error().code != ErrorCode::kNotFound) co_return tl::unexpected(a.error());
        seen[missed[j]] = a && CanSee(*a, viewer);
      }
    }
  }
  std::vector<bool> out;
  out.reserve(ids.size());
  for (int64_t id : ids) {
    auto at = std::lower_bound(unique.begin(), unique.end(), id);
    out.push_back(id > 0 && at != unique.end() && *at == id && seen[at - unique.begin()]);
  }
  co_return out;
}

Awaitable<Result<Article>> ArticleService::Get(const std::optional<Principal>& viewer, int64_t id,
                                               bool count_view, bool with_body) {
  auto cached = co_await Cached(id, count_view, with_body);
  if (!cached) co_return tl::unexpected(cached.error());
  auto a = FromFields(cached->fields);
  if (!a) co_return Fail(ErrorCode::kInternal, "corrupt cached article");
  if (!CanSee(*a, viewer)) co_return Fail(ErrorCode::kNotFound, "no such article");
  if (!with_body) co_return *a;
  if (cached->body) {
    a->content = std::move(cached->body);
  } else {
    auto row = co_await table_.Find(id, true);
    if (!row) co_return tl::unexpected(row.error());
    if (!*row) co_return Fail(ErrorCode::kNotFound, "no such article");
    // A versioned write of the whole row: the body is cached only if its version is the
    // hash's (an older hash takes the row's fields too; a newer one keeps its own, and the
    // body is refilled on a later read).
    Article row_article = FromRow(**row);
    const redis::ArticleFields fields = ToFields(row_article);
    auto refill = co_await cache_.Write(id, fields, row_article.ver, &(*row)->content);
    if (!refill) spdlog::warn("could not refill body of article {}", id);
    if (row_article.ver != a->ver) {
      // The row changed since the hash was read (a PATCH between the two reads): answer the
      // row as a whole, checked again: an unpublish's new content must not go out under the
      // published hash's check. Counters stay the cache's (Redis owns them).
      row_article.view_count = a->view_count;
      row_article.like_count = a->like_count;
      row_article.comment_count = a->comment_count;
      row_article.comment_ver = a->comment_ver;
      if (!CanSee(row_article, viewer)) co_return Fail(ErrorCode::kNotFound, "no such article");
      *a = std::move(row_article);
    }
    a->content = std::move((*row)->content);
  }
  co_return *a;
}

Awaitable<Result<Article>> ArticleService::Update(const Principal& who, int64_t id,
                                                  ArticleInput in) {
  // The cached article answers who may see it (404 otherwise) and supplies the counters the
  // answer shows (Redis owns views and the like count); the change itself is applied to the
  // row as SQL has it, under its lock, so a concurrent PATCH of other fields is never undone
  // by this one writing back what it read (issue 25, item 1). The checks run again there, on
  // the committed row.
  auto current = co_await Get(who, id, /*count_view=*/false, /*with_body=*/false);
  if (!current) co_return tl::unexpected(current.error());
  std::function<Status(sql::ArticleRow&)> apply =
      [who, in = std::move(in)](sql::ArticleRow& row) -> Status {
    Article a = FromRow(row);
    a.content = row.content;
    if (!CanSee(a, who)) return Fail(ErrorCode::kNotFound, "no such article");
    if (!CanEdit(a, who)) return Fail(ErrorCode::kPermissionDenied, "not your article");
    if (in.kind && *in.kind != a.kind) {
      return Fail(ErrorCode::kInvalidArgument, "field 'kind' cannot be changed");
    }
    if (in.pinned && *in.pinned != a.pinned && !HasRole(who.role, Role::kAdmin)) {
      return Fail(ErrorCode::kPermissionDenied, "only an admin may pin");
    }
    if (auto st = ApplyText(a, in); !st) return st;
    if (in.status) a.status = *in.status;
    if (in.pinned) a.pinned = *in.pinned;
    if (in.allow_comments) a.allow_comments = *in.allow_comments;
    a.updated_at_ms = NowMs();
    if (a.status == ArticleStatus::kPublished && !a.published_at_ms) {
      a.published_at_ms = a.updated_at_ms;  // the first publication only
    }
    sql::ArticleRow changed = ToRow(a);
    changed.author_username = row.author_username;
    changed.author_display_name = row.author_display_name;
    row = std::move(changed);
    return {};
  };
  const redis::CacheTarget target{'a', id};
  auto mark = co_await MarkWrite(target);
  if (!mark) co_return tl::unexpected(mark.error());
  const sql::CacheStamp stamp{mark->shard, mark->seq};
  auto patched = co_await table_.Patch(id, std::move(apply), stamp);
  if (!patched) {
    co_await UnmarkUnless(*mark, patched.error());
    co_return tl::unexpected(patched.error());
  }
  if (!*patched) {
    co_await Unmark(*mark);  // no such row: nothing committed
    co_return Fail(ErrorCode::kNotFound, "no such article");
  }
  Article a = FromRow((*patched)->row);
  a.content = std::move((*patched)->row.content);
  a.view_count = current->view_count;
  a.like_count = current->like_count;
  a.comment_count = current->comment_count;
  a.comment_ver = current->comment_ver;
  a.liked = current->liked;
  co_await ReflectOrRepairLater(a, /*created=*/false, *mark);
  co_return a;
}

Awaitable<Status> ArticleService::Delete(const Principal& who, int64_t id) {
  auto current = co_await Get(who, id, /*count_view=*/false);
  if (!current) co_return tl::unexpected(current.error());
  if (!CanEdit(*current, who)) co_return Fail(ErrorCode::kPermissionDenied, "not your article");
  const redis::CacheTarget target{'a', id};
  auto mark = co_await MarkWrite(target);
  if (!mark) co_return tl::unexpected(mark.error());
  const sql::CacheStamp stamp{mark->shard, mark->seq};
  auto deleted = co_await table_.Delete(id, NowMs(), stamp);
  if (!deleted) {
    co_await UnmarkUnless(*mark, deleted.error());
    co_return tl::unexpected(deleted.error());
  }
  // Whether or not SQL still had it (a retried delete), clear every trace from Redis; the
  // deletion mark keeps any write or fill still in flight from caching it again.
  std::vector<int64_t> comment_ids;
  if (*deleted) comment_ids = std::move(**deleted);
  Status removed = co_await cache_.Remove(id, comment_ids);
  if (removed) {
    auto unlisted = co_await cache_.IndexRemove(id, redis::ArticleCache::kDeletedVersion);
    if (!unlisted) removed = tl::unexpected(unlisted.error());
  }
  if (!removed) {
    spdlog::warn("article {} deleted, but its cache step failed ({}); repairing it later", id,
                 removed.error().message);
    pending_repairs_.Add(id);
  } else {
    co_await Unmark(*mark);
  }
  co_return Status{};
}

Awaitable<Status> ArticleService::RebuildIndexes() {
  std::function<Awaitable<Result<bool>>()> rebuild = [this]() -> Awaitable<Result<bool>> {
    auto locked = co_await cache_.TryLockRebuild(instance_id_);
    if (!locked) co_return tl::unexpected(locked.error());
    if (!*locked) co_return false;  // another instance is rebuilding
    // Every step renews the lock and is refused once it is lost (a stall past the lease):
    // then another instance rebuilds, and this one's twins are never swapped in.
    auto lost = [this]() -> Result<bool> {
      spdlog::warn(
          "lost the list index rebuild lock (a stall past {} ms?); another instance "
          "rebuilds",
          redis::ArticleCache::kRebuildLeaseMs);
      return false;
    };
    auto begun = co_await cache_.BeginRebuild(instance_id_);
    if (!begun) co_return tl::unexpected(begun.error());
    if (!*begun) co_return lost();
    int64_t after = 0;
    size_t total = 0;
    while (true) {
      auto chunk = co_await table_.PublishedAfter(after, 2000);
      if (!chunk) co_return tl::unexpected(chunk.error());
      if (chunk->empty()) break;
      std::vector<redis::ArticleCache::RebuildEntry> entries;
      entries.reserve(chunk->size());
      for (const auto& e : *chunk) {
        entries.push_back(
            {e.id, redis::ArticleCache::ListScore(e.pinned, e.published_at_ms), e.ver, e.kind});
        after = e.id;
      }
      total += chunk->size();
      // Skips an article changed since this read: that change already put it in or out of
      // the twins (index_rebuild.lua).
      auto added = co_await cache_.RebuildAdd(instance_id_, entries);
      if (!added) co_return tl::unexpected(added.error());
      if (!*added) co_return lost();
    }
    auto finished = co_await cache_.FinishRebuild(instance_id_);
    if (!finished) co_return tl::unexpected(finished.error());
    if (!*finished) co_return lost();
    spdlog::info("rebuilt published list indexes from SQL ({} articles)", total);
    co_return true;
  };
  auto r = co_await rebuilds_.Do(0, std::move(rebuild));
  if (!r) co_return tl::unexpected(r.error());
  co_return Status{};
}

Awaitable<Result<std::vector<Article>>> ArticleService::Hydrate(const std::vector<int64_t>& ids) {
  auto fields = co_await cache_.GetMany(ids);
  if (!fields) co_return tl::unexpected(fields.error());
  std::vector<int64_t> missing;
  for (size_t i = 0; i < ids.size(); ++i) {
    if ((*fields)[i].empty()) missing.push_back(ids[i]);
  }
  std::map<int64_t, Article> loaded;
  if (!missing.empty()) {
    // One SQL query for every miss on the page (the bodies are filled on first full read),
    // after the birth marks: each fill is versioned and checked against its mark
    // (FillFromSql), so a row read before a change or a delete never replaces what that
    // change cached.
    const uint64_t generation = cache_.Generation();
    auto tokens = co_await cache_.FillTokens(missing);
    if (!tokens) co_return tl::unexpected(tokens.error());
    auto rows = co_await table_.FindMany(missing);
    if (!rows) co_return tl::unexpected(rows.error());
    std::map<int64_t, sql::ArticleRow> by_id;
    for (auto& row : *rows) by_id.emplace(row.id, std::move(row));
    for (size_t i = 0; i < missing.size(); ++i) {
      const int64_t id = missing[i];
      auto row = by_id.find(id);
      if (row == by_id.end()) continue;  // deleted
      std::optional<PrefetchedRow> first;
      if ((*tokens)[i]) {
        first = PrefetchedRow{std::move(*(*tokens)[i]), std::move(row->second), generation};
      }
      auto filled = co_await FillFromSql(id, /*with_content=*/false, std::move(first));
      if (!filled) co_return tl::unexpected(filled.error());
      if (*filled) loaded.emplace(id, std::move(**filled));
    }
  }
  std::vector<Article> out;
  for (size_t i = 0; i < ids.size(); ++i) {
    std::optional<Article> a = FromFields((*fields)[i]);
    if (!a) {
      if (auto it = loaded.find(ids[i]); it != loaded.end()) a = std::move(it->second);
    }
    // Only what the article itself says is published: an index entry a lost or late step
    // left behind never shows a draft (or a deleted article: no hash, no row). And it goes,
    // at the version the article has (a newer change's entry stays: index_update.lua).
    if (!a || !Listed(*a)) {
      const int64_t ver = a ? a->ver : redis::ArticleCache::kDeletedVersion;
      auto removed = co_await cache_.IndexRemove(ids[i], ver);
      if (!removed) spdlog::warn("could not drop stale list entry {}", ids[i]);
      continue;
    }
    a->content.reset();  // list items carry no body
    out.push_back(std::move(*a));
  }
  co_return out;
}

Awaitable<Result<PageResult<Article>>> ArticleService::ListPublished(
    std::optional<ArticleKind> kind, PageRequest req) {
  const std::string list = ListName(kind);
  std::optional<std::pair<int64_t, int64_t>> after;  // (score, id)
  if (req.cursor) {
    after = DecodeScoreCursor(*req.cursor, 'p');
    if (!after) co_return Fail(ErrorCode::kInvalidArgument, "invalid cursor");
  }
  if (!Checked()) {
    if (auto st = co_await EnsureChecked(); !st) co_return tl::unexpected(st.error());
  }
  Result<std::optional<redis::ListPage>> page = std::optional<redis::ListPage>{};
  for (int attempt = 0; attempt < 2; ++attempt) {
    // if/else, not ?: — GCC 12 destroys the temporaries of a co_await inside ?: twice.
    if (after) {
      page = co_await cache_.PageAfter(list, after->first, after->second, req.size + 1);
    } else {
      page = co_await cache_.Page(list, (req.page - 1) * req.size, req.size + 1);
    }
    if (!page) co_return tl::unexpected(page.error());
    if (*page) break;
    if (auto st = co_await RebuildIndexes(); !st) co_return tl::unexpected(st.error());
  }
  if (!*page) co_return Fail(ErrorCode::kUnavailable, "list index is being rebuilt; retry");
  auto& entries = (*page)->entries;
  bool more = static_cast<int64_t>(entries.size()) > req.size;
  if (more) entries.resize(static_cast<size_t>(req.size));
  std::vector<int64_t> ids;
  for (const auto& e : entries) ids.push_back(e.id);
  auto items = co_await Hydrate(ids);
  if (!items) co_return tl::unexpected(items.error());
  PageResult<Article> out;
  out.total = (*page)->total;
  out.items = std::move(*items);
  if (more && !entries.empty()) {
    const auto& last = entries.back();
    out.next_cursor = EncodeScoreCursor('p', last.score, last.id);
  }
  co_return out;
}

Awaitable<Result<PageResult<Article>>> ArticleService::ListOwn(const Principal& who,
                                                               bool drafts_only,
                                                               std::optional<ArticleKind> kind,
                                                               PageRequest req) {
  sql::AuthorListQuery q;
  if (!HasRole(who.role, Role::kAdmin)) q.author_id = who.id;
  if (drafts_only) q.status = "draft";
  if (kind) q.kind = std::string(KindName(*kind));
  q.limit = req.size + 1;
  q.offset = (req.page - 1) * req.size;
  if (req.cursor) {
    auto raw = DecodeCursor(*req.cursor);
    long long id = 0;
    char tag = 0;
    if (!raw || std::sscanf(raw->c_str(), "%c%lld", &tag, &id) != 2 || tag != 'o' || id <= 0) {
      co_return Fail(ErrorCode::kInvalidArgument, "invalid cursor");
    }
    q.before_id = id;
  }
  auto rows = co_await table_.ListForAuthor(q);
  if (!rows) co_return tl::unexpected(rows.error());
  PageResult<Article> out;
  out.total = rows->second;
  bool more = static_cast<int64_t>(rows->first.size()) > req.size;
  if (more) rows->first.resize(static_cast<size_t>(req.size));
  for (const auto& r : rows->first) out.items.push_back(FromRow(r));
  if (more && !out.items.empty())
    out.next_cursor = EncodeCursor("o" + std::to_string(out.items.back().id));
  co_return out;
}

Awaitable<Result<ChangePage>> ArticleService::Changes(const Principal& who, std::string after,
                                                      int64_t limit) {
  if (!HasRole(who.role, Role::kAdmin)) {
    co_return Fail(ErrorCode::kPermissionDenied, "the change feed is for admins");
  }
  auto cursor = ParseChangeCursor(after);
  if (!cursor) co_return Fail(ErrorCode::kInvalidArgument, "invalid cursor");
  Result<std::vector<sql::ChangeRow>> rows = std::vector<sql::ChangeRow>{};
  // if/else, not ?: around co_await (GCC 12).
  if (cursor->from_ms) {
    rows = co_await changes_.FromTime(*cursor->from_ms, limit);
  } else {
    rows = co_await changes_.After(*cursor->after_id, limit);
  }
  if (!rows) co_return tl::unexpected(rows.error());
  ChangePage page;
  for (auto& row : *rows) {
    page.items.push_back({std::to_string(row.id), row.article_id, std::move(row.op), row.at_ms});
  }
  if (!page.items.empty()) {
    page.next_cursor = page.items.back().cursor;
  } else if (cursor->from_ms) {
    page.next_cursor = after;  // nothing at or after that time yet: resume there again
  } else {
    page.next_cursor = std::to_string(*cursor->after_id);
  }
  co_return page;
}

}  // namespace plaudit::domain
