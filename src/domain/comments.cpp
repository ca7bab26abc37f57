#include "domain/comments.hpp"

#include <sodium.h>
#include <spdlog/spdlog.h>

#include <boost/asio/experimental/awaitable_operators.hpp>
#include <charconv>
#include <map>

#include "common/time.hpp"
#include "common/when_all.hpp"
#include "domain/cursor.hpp"
#include "redis/keys.hpp"

namespace plaudit::domain {

using namespace boost::asio::experimental::awaitable_operators;

namespace {

constexpr int64_t kRebuildChunk = 1000;  // SQL rows per query while rebuilding
constexpr size_t kPutsPerScript = 100;   // comments per comment_put.lua call
constexpr int64_t kLeaseMs = 30000;      // a rebuilder that stops renewing loses it after this
constexpr int kWaitRounds = 400;         // × 25 ms: how long a reader waits on another rebuild
constexpr int kChunkAttempts = 3;        // tries per rebuild chunk before giving up

char SortTag(CommentSort s) {
  switch (s) {
    case CommentSort::kNew:
      return 'n';
    case CommentSort::kOld:
      return 'o';
    case CommentSort::kHot:
      return 'h';
  }
  return 'n';
}

std::vector<redis::CommentPut> PutsOf(const std::vector<sql::CommentRow>& rows) {
  std::vector<redis::CommentPut> out;
  for (const auto& r : rows) out.push_back({r.id, r.parent_id, CommentToFields(r)});
  return out;
}

}  // namespace

redis::CommentFields CommentToFields(const sql::CommentRow& r) {
  return {{"id", std::to_string(r.id)},
          {"article", std::to_string(r.article_id)},
          {"parent", r.parent_id ? std::to_string(*r.parent_id) : ""},
          {"author_id", std::to_string(r.author_id)},
          {"author_username", r.author_username},
          {"author_display", r.author_display_name},
          {"reply_to_id", r.reply_to_id ? std::to_string(*r.reply_to_id) : ""},
          {"reply_to_username", r.reply_to_username},
          {"reply_to_display", r.reply_to_display_name},
          {"body", r.body},
          {"created", std::to_string(r.created_at_ms)},
          {"updated", std::to_string(r.updated_at_ms)},
          {"deleted", r.deleted ? "1" : "0"},
          {"replies", std::to_string(r.reply_count)},
          {"likes", std::to_string(r.like_count)},
          {"ver", std::to_string(r.ver)}};
}

namespace {

int64_t RecordInt(const std::string& v) {
  if (v.empty()) return 0;
  int64_t out = 0;
  auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  return ec == std::errc() ? out : 0;
}

}  // namespace

std::optional<Comment> CommentFromRecord(redis::CommentRecord&& rec) {
  using namespace redis;
  Comment c;
  c.id = RecordInt(rec[kCmId]);
  c.article_id = RecordInt(rec[kCmArticle]);
  if (c.id <= 0 || c.article_id <= 0) return std::nullopt;
  if (int64_t p = RecordInt(rec[kCmParent]); p > 0) c.parent_id = p;
  c.author = {RecordInt(rec[kCmAuthorId]), std::move(rec[kCmAuthorUsername]),
              std::move(rec[kCmAuthorDisplay])};
  if (int64_t r = RecordInt(rec[kCmReplyToId]); r > 0) {
    c.reply_to =
        CommentUser{r, std::move(rec[kCmReplyToUsername]), std::move(rec[kCmReplyToDisplay])};
  }
  c.body = std::move(rec[kCmBody]);
  c.created_at_ms = RecordInt(rec[kCmCreated]);
  c.updated_at_ms = RecordInt(rec[kCmUpdated]);
  c.deleted = RecordInt(rec[kCmDeleted]) != 0;
  c.reply_count = RecordInt(rec[kCmReplies]);
  c.like_count = RecordInt(rec[kCmLikes]);
  c.ver = RecordInt(rec[kCmVer]);
  return c;
}

Comment CommentFromRow(const sql::CommentRow& r) {
  Comment c;
  c.id = r.id;
  c.article_id = r.article_id;
  c.parent_id = r.parent_id;
  c.author = {r.author_id, r.author_username, r.author_display_name};
  if (r.reply_to_id) {
    c.reply_to = CommentUser{*r.reply_to_id, r.reply_to_username, r.reply_to_display_name};
  }
  c.body = r.body;
  c.created_at_ms = r.created_at_ms;
  c.updated_at_ms = r.updated_at_ms;
  c.deleted = r.deleted;
  c.reply_count = r.reply_count;
  c.like_count = r.like_count;
  c.ver = r.ver;
  return c;
}

CommentService::CommentService(sql::CommentTable& table, redis::CommentCache& cache,
                               redis::ArticleCache& article_cache, sql::ArticleTable& article_table,
                               ArticleService& articles, LikeService& likes, int64_t edit_window_ms)
    : table_(table),
      cache_(cache),
      article_cache_(article_cache),
      article_table_(article_table),
      articles_(articles),
      likes_(likes),
      edit_window_ms_(edit_window_ms) {
  unsigned char raw[8];
  randombytes_buf(raw, sizeof(raw));
  char hex[17];
  sodium_bin2hex(hex, sizeof(hex), raw, sizeof(raw));
  owner_ = hex;
}

Awaitable<Result<int64_t>> CommentService::AllocateId(int64_t article_id, bool reseed) {
  int64_t floor = -1;
  if (reseed) {
    auto max = co_await table_.MaxId();
    if (!max) co_return tl::unexpected(max.error());
    floor = *max / redis::keys::kLikeShards;
  }
  auto seq = co_await cache_.NextSeq(floor);
  if (!seq) co_return tl::unexpected(seq.error());
  if (*seq) co_return redis::keys::CommentIdFor(**seq, article_id);
  if (reseed) co_return Fail(ErrorCode::kInternal, "comment sequence did not resume");
  co_return co_await AllocateId(article_id, true);
}

Awaitable<Status> CommentService::ReseedIds() {
  auto id = co_await AllocateId(0, true);
  if (!id) co_return tl::unexpected(id.error());
  co_return Status{};
}

Awaitable<Result<Comment>> CommentService::Create(const Principal& who, int64_t article_id,
                                                  CommentInput in) {
  auto body = NormalizeCommentBody(in.body);
  if (!body) co_return tl::unexpected(body.error());
  auto article = co_await articles_.Get(who, article_id, /*count_view=*/false, /*with_body=*/false);
  if (!article) co_return tl::unexpected(article.error());
  if (article->status != ArticleStatus::kPublished) {
    co_return Fail(ErrorCode::kPermissionDenied, "comments open once the article is published");
  }
  if (!article->allow_comments) {
    co_return Fail(ErrorCode::kPermissionDenied, "comments are closed on this article");
  }
  auto id = co_await AllocateId(article_id, false);
  if (!id) co_return tl::unexpected(id.error());
  sql::NewComment nc;
  nc.id = *id;
  nc.article_id = article_id;
  nc.parent_id = in.parent_id;
  nc.reply_to_user_id = in.reply_to_user_id;
  nc.author_id = who.id;
  nc.body = std::move(*body);
  nc.now_ms = NowMs();
  const redis::CacheTarget target{'c', article_id};
  auto mark = co_await articles_.MarkWrite(target);
  if (!mark) co_return tl::unexpected(mark.error());
  const sql::CacheStamp stamp{mark->shard, mark->seq};
  auto copy = nc;
  auto w = co_await table_.Insert(std::move(copy), stamp);
  if (!w && w.error().code == ErrorCode::kAlreadyExists) {
    // Redis came back with an old sequence: resume above SQL's highest id and retry once.
    spdlog::warn("comment id {} already in SQL; reseeding the sequence", nc.id);
    id = co_await AllocateId(article_id, true);
    if (!id) co_return tl::unexpected(id.error());
    nc.id = *id;
    w = co_await table_.Insert(std::move(nc), stamp);
  }
  if (!w) {
    co_await articles_.UnmarkUnless(*mark, w.error());
    co_return tl::unexpected(w.error());
  }
  if (auto st = co_await AfterCommit(*w, *mark); !st) co_return tl::unexpected(st.error());
  co_return CommentFromRow(w->rows.front());
}

Awaitable<Status> CommentService::Reflect(const sql::CommentWrite& w) {
  if (fail_reflect && fail_reflect()) co_return Fail(ErrorCode::kUnavailable, "test hook");
  const int64_t article_id = w.rows.front().article_id;
  const auto puts = PutsOf(w.rows);
  if (auto st = co_await cache_.Put(article_id, puts); !st) co_return st;
  co_return co_await article_cache_.SetCommentCount(article_id, w.article_comment_count,
                                                    w.article_comment_ver);
}

Awaitable<Status> CommentService::AfterCommit(const sql::CommentWrite& w,
                                              const redis::CacheMark& mark) {
  if (w.rows.empty()) {
    co_await articles_.Unmark(mark);
    co_return Status{};
  }
  auto st = co_await Reflect(w);
  if (st) {
    co_await articles_.Unmark(mark);
    co_return Status{};
  }
  // Committed in SQL either way: make the cache forget rather than serve a stale thread.
  const int64_t article_id = w.rows.front().article_id;
  spdlog::warn("comment cache of article {} not updated ({}); invalidating", article_id,
               st.error().message);
  if (auto repaired = co_await Repair(article_id); !repaired) {
    spdlog::warn("invalidation of article {} failed ({}); retried by the flusher", article_id,
                 repaired.error().message);
    pending_repairs_.Add(article_id);
  } else {
    co_await articles_.Unmark(mark);
  }
  co_return Status{};
}

Awaitable<Status> CommentService::Repair(int64_t article_id) {
  if (auto st = co_await cache_.Invalidate(article_id); !st) co_return st;
  auto row = co_await article_table_.Find(article_id, /*with_content=*/false);
  if (!row) co_return tl::unexpected(row.error());
  if (!*row) co_return Status{};
  co_return co_await article_cache_.SetCommentCount(article_id, (*row)->comment_count,
                                                    (*row)->comment_ver);
}

Awaitable<Result<int64_t>> CommentService::RepairPending() {
  std::function<Awaitable<Status>(int64_t)> repair = [this](int64_t id) { return Repair(id); };
  co_return co_await pending_repairs_.Retry(std::move(repair));
}

Awaitable<Result<Comment>> CommentService::Peek(int64_t id) {
  if (!articles_.Checked()) {
    if (auto st = co_await articles_.EnsureChecked(); !st) co_return tl::unexpected(st.error());
  }
  const std::vector<int64_t> ids{id};
  auto cached = co_await cache_.GetMany(ids);
  if (!cached) co_return tl::unexpected(cached.error());
  if (cached->front()) {
    if (auto c = CommentFromRecord(std::move(*cached->front()))) co_return *c;
  }
  auto row = co_await table_.Find(id);
  if (!row) co_return tl::unexpected(row.error());
  if (!*row) co_return Fail(ErrorCode::kNotFound, "no such comment");
  const std::vector<sql::CommentRow> rows{**row};
  const auto puts = PutsOf(rows);
  if (auto st = co_await cache_.Put((*row)->article_id, puts); !st) {
    co_return tl::unexpected(st.error());
  }
  co_return CommentFromRow(**row);
}

Awaitable<Result<Comment>> CommentService::Visible(const std::optional<Principal>& viewer,
                                                   int64_t id) {
  auto c = co_await Peek(id);
  if (!c) co_return tl::unexpected(c.error());
  if (!c->Listed()) co_return Fail(ErrorCode::kNotFound, "no such comment");
  auto article = co_await articles_.Get(viewer, c->article_id, false, false);
  if (!article) {
    if (article.error().code == ErrorCode::kNotFound) {
      co_return Fail(ErrorCode::kNotFound, "no such comment");
    }
    co_return tl::unexpected(article.error());
  }
  co_return *c;
}

Awaitable<Result<std::vector<bool>>> CommentService::VisibleMany(
    const std::optional<Principal>& viewer, std::vector<int64_t> ids) {
  // Articles of comments seen before come from memory; the others' placements from Redis in
  // one round trip, and what Redis does not hold through Peek (SQL), all at once.
  if (!articles_.Checked()) {
    if (auto st = co_await articles_.EnsureChecked(); !st) co_return tl::unexpected(st.error());
  }
  std::vector<int64_t> articles(ids.size(), 0);
  std::vector<size_t> unknown;
  std::vector<int64_t> unknown_ids;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (auto it = article_of_.find(ids[i]); it != article_of_.end()) {
      articles[i] = it->second;
    } else {
      unknown.push_back(i);
      unknown_ids.push_back(ids[i]);
    }
  }
  auto learn = [&](size_t i, int64_t article_id) {
    if (article_of_.size() >= kArticleOfCapacity) article_of_.clear();
    article_of_.emplace(ids[i], article_id);
    articles[i] = article_id;
  };
  if (!unknown.empty()) {
    auto cached = co_await cache_.GetPlacements(unknown_ids);
    if (!cached) co_return tl::unexpected(cached.error());
    std::vector<size_t> missed;
    for (size_t j = 0; j < unknown.size(); ++j) {
      std::optional<Comment> c;
      if ((*cached)[j]) c = CommentFromRecord(std::move(*(*cached)[j]));
      if (c) {
        learn(unknown[j], c->article_id);
      } else {
        missed.push_back(unknown[j]);
      }
    }
    std::vector<Awaitable<Result<Comment>>> peeks;
    for (size_t i : missed) peeks.push_back(Peek(ids[i]));
    auto found = co_await WhenAll(std::move(peeks));
    for (size_t j = 0; j < missed.size(); ++j) {
      const auto& c = found[j];
      if (!c && c.error().code != ErrorCode::kNotFound) co_return tl::unexpected(c.error());
      if (c) learn(missed[j], c->article_id);
    }
  }
  // 0 (an unknown or unlisted comment) is no article: false, without a lookup.
  auto seen = co_await articles_.VisibleMany(viewer, articles);
  if (!seen) co_return tl::unexpected(seen.error());
  co_return std::move(*seen);
}

Awaitable<Result<Comment>> CommentService::Get(const std::optional<Principal>& viewer, int64_t id) {
  auto c = co_await Visible(viewer, id);
  if (!c) co_return tl::unexpected(c.error());
  std::vector<Comment*> one{&*c};
  if (auto st = co_await AddLikes(viewer ? viewer->id : 0, one); !st) {
    co_return tl::unexpected(st.error());
  }
  co_return *c;
}

Awaitable<Result<Comment>> CommentService::Edit(const Principal& who, int64_t id,
                                                std::string body) {
  auto text = NormalizeCommentBody(body);
  if (!text) co_return tl::unexpected(text.error());
  auto c = co_await Visible(who, id);
  if (!c) co_return tl::unexpected(c.error());
  if (c->deleted) co_return Fail(ErrorCode::kNotFound, "no such comment");
  if (!HasRole(who.role, Role::kAdmin)) {
    if (c->author.id != who.id) co_return Fail(ErrorCode::kPermissionDenied, "not your comment");
    if (NowMs() - c->created_at_ms > edit_window_ms_) {
      co_return Fail(ErrorCode::kPermissionDenied, "the edit window of this comment has passed");
    }
  }
  const redis::CacheTarget target{'c', c->article_id};
  auto mark = co_await articles_.MarkWrite(target);
  if (!mark) co_return tl::unexpected(mark.error());
  const sql::CacheStamp stamp{mark->shard, mark->seq};
  auto w = co_await table_.Edit(id, std::move(*text), NowMs(), stamp);
  if (!w) {
    co_await articles_.UnmarkUnless(*mark, w.error());
    co_return tl::unexpected(w.error());
  }
  if (auto st = co_await AfterCommit(*w, *mark); !st) co_return tl::unexpected(st.error());
  Comment out = CommentFromRow(w->rows.front());
  std::vector<Comment*> one{&out};
  if (auto st = co_await AddLikes(who.id, one); !st) co_return tl::unexpected(st.error());
  co_return out;
}

Awaitable<Status> CommentService::Delete(const Principal& who, int64_t id) {
  auto c = co_await Visible(who, id);
  if (!c) co_return tl::unexpected(c.error());
  if (c->deleted) co_return Fail(ErrorCode::kNotFound, "no such comment");
  if (c->author.id != who.id && !HasRole(who.role, Role::kAdmin)) {
    co_return Fail(ErrorCode::kPermissionDenied, "not your comment");
  }
  const redis::CacheTarget target{'c', c->article_id};
  auto mark = co_await articles_.MarkWrite(target);
  if (!mark) co_return tl::unexpected(mark.error());
  const sql::CacheStamp stamp{mark->shard, mark->seq};
  auto w = co_await table_.Delete(id, NowMs(), stamp);
  if (!w) {
    co_await articles_.UnmarkUnless(*mark, w.error());
    co_return tl::unexpected(w.error());
  }
  co_return co_await AfterCommit(*w, *mark);
}

Awaitable<Result<LikeState>> CommentService::SetLike(const Principal& who, const Comment& c,
                                                     bool like) {
  if (c.deleted) co_return Fail(ErrorCode::kNotFound, "no such comment");
  auto article = co_await articles_.Peek(c.article_id);
  if (!article) {
    if (article.error().code == ErrorCode::kNotFound) {
      co_return Fail(ErrorCode::kNotFound, "no such comment");
    }
    co_return tl::unexpected(article.error());
  }
  if (!CanSee(*article, who)) co_return Fail(ErrorCode::kNotFound, "no such comment");
  const redis::HotOrder hot{c.article_id, c.parent_id};
  const redis::LikeTarget target = redis::LikeTarget::OfComment(c.id);
  co_return co_await likes_.Set(who, target, like, &hot);
}

Awaitable<Result<LikeState>> CommentService::GetLike(const std::optional<Principal>& viewer,
                                                     int64_t id) {
  auto c = co_await Visible(viewer, id);
  if (!c) co_return tl::unexpected(c.error());
  const redis::LikeTarget target = redis::LikeTarget::OfComment(id);
  co_return co_await likes_.Get(viewer ? viewer->id : 0, target);
}

Awaitable<Status> CommentService::AddLikes(int64_t user_id, std::vector<Comment*> comments) {
  std::vector<redis::LikeTarget> targets;
  for (const Comment* c : comments) targets.push_back(redis::LikeTarget::OfComment(c->id));
  auto states = co_await likes_.GetMany(user_id, std::move(targets));
  if (!states) co_return tl::unexpected(states.error());
  for (size_t i = 0; i < comments.size(); ++i) {
    comments[i]->like_count = (*states)[i].count;
    comments[i]->liked = (*states)[i].liked;
  }
  co_return Status{};
}

Awaitable<Status> CommentService::EnsureLoaded(int64_t article_id) {
  std::function<Awaitable<Result<bool>>()> build = [this, article_id]() -> Awaitable<Result<bool>> {
    auto ex = co_await net::this_coro::executor;
    for (int round = 0; round < kWaitRounds; ++round) {
      auto state = co_await cache_.Meta(article_id, "begin", owner_, kLeaseMs);
      if (!state) co_return tl::unexpected(state.error());
      if (*state == "ready") co_return true;
      if (*state == "busy") {
        net::steady_timer wait(ex, std::chrono::milliseconds(25));
        boost::system::error_code ec;
        co_await wait.async_wait(net::redirect_error(net::use_awaitable, ec));
        continue;
      }
      // Ours: copy SQL into the cache chunk by chunk, yielding to other requests between.
      int64_t after = 0;
      size_t total = 0;
      bool lost = false;
      while (!lost) {
        auto rows = co_await table_.ListForArticle(article_id, after, kRebuildChunk);
        if (!rows) co_return tl::unexpected(rows.error());
        if (rows->empty()) break;
        std::vector<std::vector<redis::CommentPut>> batches;
        for (size_t i = 0; i < rows->size(); i += kPutsPerScript) {
          const std::vector<sql::CommentRow> part(
              rows->begin() + static_cast<std::ptrdiff_t>(i),
              rows->begin() +
                  static_cast<std::ptrdiff_t>(std::min(rows->size(), i + kPutsPerScript)));
          batches.push_back(PutsOf(part));
        }
        // The batches outlive the puts (they are awaited below): one pipelined write. A
        // failed chunk (a Redis timeout on a loaded box) is sent again rather than throwing
        // away the rows already copied: puts are versioned, so repeating one is harmless.
        Status chunk_ok = Fail(ErrorCode::kUnavailable, "comment rebuild chunk not written");
        for (int attempt = 0; attempt < kChunkAttempts && !chunk_ok; ++attempt) {
          std::vector<Awaitable<Status>> puts;
          for (const auto& b : batches) puts.push_back(cache_.Put(article_id, b));
          auto results = co_await WhenAll(std::move(puts));
          chunk_ok = Status{};
          for (auto& r : results) {
            if (!r) chunk_ok = r;
          }
          if (!chunk_ok) {
            spdlog::warn("comment rebuild of article {}: chunk after id {} failed ({}), attempt {}",
                         article_id, after, chunk_ok.error().message, attempt + 1);
          }
        }
        if (!chunk_ok) co_return tl::unexpected(chunk_ok.error());
        total += rows->size();
        after = rows->back().id;
        auto renewed = co_await cache_.Meta(article_id, "renew", owner_, kLeaseMs);
        if (!renewed) co_return tl::unexpected(renewed.error());
        lost = *renewed != "ok";
        if (static_cast<int64_t>(rows->size()) < kRebuildChunk) break;
      }
      if (lost) continue;
      auto done = co_await cache_.Meta(article_id, "finish", owner_, kLeaseMs);
      if (!done) co_return tl::unexpected(done.error());
      if (*done != "ok") continue;
      spdlog::info("rebuilt the comment cache of article {} from SQL ({} comments)", article_id,
                   total);
      co_return true;
    }
    co_return Fail(ErrorCode::kUnavailable, "comments are being rebuilt; retry");
  };
  auto r = co_await rebuilds_.Do(article_id, std::move(build));
  if (!r) co_return tl::unexpected(r.error());
  co_return Status{};
}

Awaitable<Result<std::vector<Comment>>> CommentService::Hydrate(
    const std::vector<int64_t>& ids, std::vector<redis::CachedComment> cached) {
  std::vector<int64_t> missing;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (!cached[i]) missing.push_back(ids[i]);
  }
  std::map<int64_t, Comment> loaded;
  if (!missing.empty()) {
    // Evicted or never cached: one SQL query for the page's misses, then back into Redis.
    auto rows = co_await table_.FindMany(missing);
    if (!rows) co_return tl::unexpected(rows.error());
    if (!rows->empty()) {
      const auto puts = PutsOf(*rows);
      if (auto st = co_await cache_.Put(rows->front().article_id, puts); !st) {
        co_return tl::unexpected(st.error());
      }
    }
    for (const auto& row : *rows) loaded.emplace(row.id, CommentFromRow(row));
  }
  std::vector<Comment> out;
  for (size_t i = 0; i < ids.size(); ++i) {
    std::optional<Comment> c;
    if (cached[i]) c = CommentFromRecord(std::move(*cached[i]));
    if (!c) {
      auto it = loaded.find(ids[i]);
      if (it == loaded.end()) continue;  // gone meanwhile
      c = it->second;
    }
    if (c->Listed()) out.push_back(std::move(*c));
  }
  co_return out;
}

Result<std::optional<std::pair<int64_t, int64_t>>> CommentService::ParseCursor(
    CommentSort sort, const PageRequest& req) {
  using After = std::optional<std::pair<int64_t, int64_t>>;  // (score, id)
  if (!req.cursor) return After{};
  After after = DecodeScoreCursor(*req.cursor, SortTag(sort));
  if (!after) return Fail(ErrorCode::kInvalidArgument, "invalid cursor");
  return after;
}

Awaitable<Result<std::optional<redis::ListPage>>> CommentService::FetchPage(
    int64_t article_id, std::optional<int64_t> parent, CommentSort sort, PageRequest req,
    std::optional<std::pair<int64_t, int64_t>> after) {
  const auto index =
      sort == CommentSort::kHot ? redis::CommentIndex::kByLikes : redis::CommentIndex::kByTime;
  const bool desc = sort != CommentSort::kOld;
  if (after) {
    co_return co_await cache_.PageAfter(article_id, parent, index, desc, after->first,
                                        after->second, req.size + 1);
  }
  co_return co_await cache_.Page(article_id, parent, index, desc, (req.page - 1) * req.size,
                                 req.size + 1);
}

Awaitable<Result<PageResult<Comment>>> CommentService::PageOf(
    const std::optional<Principal>& viewer, int64_t article_id, std::optional<int64_t> parent,
    CommentSort sort, PageRequest req, int64_t replies,
    Result<std::optional<redis::ListPage>> page) {
  auto after = ParseCursor(sort, req);
  if (!after) co_return tl::unexpected(after.error());
  for (int attempt = 0; attempt < 3; ++attempt) {
    if (!page) co_return tl::unexpected(page.error());
    if (*page) break;
    // The article's comment cache is missing: rebuild it from SQL, then read again.
    if (auto st = co_await EnsureLoaded(article_id); !st) co_return tl::unexpected(st.error());
    page = co_await FetchPage(article_id, parent, sort, req, *after);
  }
  if (!page) co_return tl::unexpected(page.error());
  if (!*page) co_return Fail(ErrorCode::kUnavailable, "comments are being rebuilt; retry");
  auto& entries = (*page)->entries;
  const bool more = static_cast<int64_t>(entries.size()) > req.size;
  if (more) entries.resize(static_cast<size_t>(req.size));
  std::vector<int64_t> ids;
  for (const auto& e : entries) ids.push_back(e.id);

  // Round trip 2: the comments and their first reply ids.
  auto heads = co_await cache_.GetWithReplies(ids, parent ? 0 : replies);
  if (!heads) co_return tl::unexpected(heads.error());
  std::vector<int64_t> reply_ids;
  for (const auto& r : heads->second) reply_ids.insert(reply_ids.end(), r.begin(), r.end());
  // Round trip 3: the replies and every like state, together.
  std::vector<redis::LikeTarget> targets;
  for (int64_t id : ids) targets.push_back(redis::LikeTarget::OfComment(id));
  for (int64_t id : reply_ids) targets.push_back(redis::LikeTarget::OfComment(id));
  auto reply_op = cache_.GetMany(reply_ids);
  auto likes_op = likes_.GetMany(viewer ? viewer->id : 0, std::move(targets));
  auto both = co_await (std::move(reply_op) && std::move(likes_op));
  auto& reply_fields = std::get<0>(both);
  auto& states = std::get<1>(both);
  if (!reply_fields) co_return tl::unexpected(reply_fields.error());
  if (!states) co_return tl::unexpected(states.error());
  std::map<int64_t, LikeState> like_of;
  for (size_t i = 0; i < ids.size(); ++i) like_of[ids[i]] = (*states)[i];
  for (size_t i = 0; i < reply_ids.size(); ++i) like_of[reply_ids[i]] = (*states)[ids.size() + i];

  auto items = co_await Hydrate(ids, std::move(heads->first));
  if (!items) co_return tl::unexpected(items.error());
  auto reply_items = co_await Hydrate(reply_ids, std::move(*reply_fields));
  if (!reply_items) co_return tl::unexpected(reply_items.error());
  std::map<int64_t, std::vector<Comment>> replies_of;
  for (auto& r : *reply_items) {
    r.like_count = like_of[r.id].count;
    r.liked = like_of[r.id].liked;
    if (r.parent_id) replies_of[*r.parent_id].push_back(std::move(r));
  }
  PageResult<Comment> out;
  out.total = (*page)->total;
  for (auto& c : *items) {
    c.like_count = like_of[c.id].count;
    c.liked = like_of[c.id].liked;
    if (auto it = replies_of.find(c.id); it != replies_of.end()) c.replies = std::move(it->second);
    out.items.push_back(std::move(c));
  }
  if (more && !entries.empty()) {
    const auto& last = entries.back();
    out.next_cursor = EncodeScoreCursor(SortTag(sort), last.score, last.id);
  }
  co_return out;
}

Awaitable<Result<PageResult<Comment>>> CommentService::List(const std::optional<Principal>& viewer,
                                                            int64_t article_id, CommentSort sort,
                                                            PageRequest page, int64_t replies) {
  auto after = ParseCursor(sort, page);
  if (!after) co_return tl::unexpected(after.error());
  if (!articles_.Checked()) {
    if (auto st = co_await articles_.EnsureChecked(); !st) co_return tl::unexpected(st.error());
  }
  // The article check and the index page leave together: one round trip.
  auto article_op = articles_.Get(viewer, article_id, false, false);
  auto page_op = FetchPage(article_id, std::nullopt, sort, page, *after);
  auto both = co_await (std::move(article_op) && std::move(page_op));
  auto& article = std::get<0>(both);
  if (!article) co_return tl::unexpected(article.error());
  co_return co_await PageOf(viewer, article_id, std::nullopt, sort, std::move(page), replies,
                            std::move(std::get<1>(both)));
}

Awaitable<Result<PageResult<Comment>>> CommentService::Replies(
    const std::optional<Principal>& viewer, int64_t comment_id, CommentSort sort,
    PageRequest page) {
  auto after = ParseCursor(sort, page);
  if (!after) co_return tl::unexpected(after.error());
  auto c = co_await Visible(viewer, comment_id);
  if (!c) co_return tl::unexpected(c.error());
  // A reply has no replies of its own (they sit under its top-level comment): an empty page.
  auto first = co_await FetchPage(c->article_id, c->id, sort, page, *after);
  co_return co_await PageOf(viewer, c->article_id, c->id, sort, std::move(page), 0,
                            std::move(first));
}

}  // namespace plaudit::domain
