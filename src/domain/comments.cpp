// CommentService: writes and the rights to make them (create, edit, delete, like), their
// Redis step after the SQL commit, and the repairs when that step fails. Reads and pages are
// in comment_reads.cpp and comment_page*.cpp; rebuilding a thread's cache,
// store/comment_rebuild.cpp.
#include "domain/comments.hpp"

#include <spdlog/spdlog.h>

#include "common/time.hpp"
#include "domain/guest_token.hpp"
#include "text/mentions.hpp"

namespace plaudit::domain {

CommentService::CommentService(sql::CommentTable& table, redis::CommentCache& cache,
                               ArticleService& articles, LikeService& likes, int64_t edit_window_ms,
                               const WriteFaults& faults)
    : table_(table),
      cache_(cache),
      articles_(articles),
      likes_(likes),
      edit_window_ms_(edit_window_ms),
      faults_(faults),
      repo_(table, cache),
      unknown_(likes.store(), redis::IdKind::kComment) {}

Awaitable<Result<int64_t>> CommentService::AllocateId(int64_t article_id, bool reseed) {
  PL_CO_TRY(auto ids, co_await AllocateIds(article_id, reseed, 1));
  co_return ids.front();
}

Awaitable<Result<std::vector<int64_t>>> CommentService::AllocateIds(int64_t article_id, bool reseed,
                                                                    int64_t count) {
  std::optional<int64_t> sql_max_id;
  if (reseed) {
    PL_CO_TRY(sql_max_id, co_await table_.MaxId());
  }
  PL_CO_TRY(auto ids, co_await cache_.NextCommentIds(article_id, sql_max_id, count));
  if (ids) {
    co_return std::move(*ids);
  }
  if (reseed) {
    co_return Fail(ErrorCode::kInternal, "comment sequence did not resume");
  }
  co_return co_await AllocateIds(article_id, true, count);
}

Awaitable<Result<std::vector<int64_t>>> CommentService::NewImportIds(int64_t article_id,
                                                                     int64_t count) {
  co_return co_await AllocateIds(article_id, false, count);
}

Awaitable<Result<std::vector<sql::CommentWrite>>> CommentService::ImportBatches(
    std::string import_key, std::shared_ptr<const sql::VerifiedAddresses> users,
    std::vector<std::pair<int64_t, std::vector<sql::ImportedComment>>> batches) {
  // WriteThread's protocol for many threads at once: every mark taken before the transaction,
  // each article's write reflected (or repaired) under its own mark after the commit.
  std::vector<redis::CacheMark> marks;
  std::vector<sql::ImportedArticle> articles;
  marks.reserve(batches.size());
  articles.reserve(batches.size());
  for (auto& [article_id, comments] : batches) {
    auto mark = co_await articles_.MarkWrite(redis::CacheTarget::OfThread(article_id));
    if (!mark) {
      for (const redis::CacheMark& m : marks) {
        co_await articles_.Unmark(m);
      }
      co_return tl::unexpected(mark.error());
    }
    articles.push_back(
        {article_id, std::move(comments), sql::CacheStamp{mark->shard, mark->seq, article_id}});
    marks.push_back(*mark);
  }
  auto written =
      co_await table_.InsertImported(std::move(import_key), std::move(users), std::move(articles));
  if (!written) {
    for (const redis::CacheMark& m : marks) {
      co_await articles_.UnmarkUnless(m, written.error());
    }
    co_return tl::unexpected(written.error());
  }
  // The threads cached now take the comments at once; the others' comments are not put into
  // Redis (a reader asking for one reads SQL): a large import would otherwise fill Redis with
  // every comment it moved (1.8 GiB at a million), read or not.
  for (size_t i = 0; i < marks.size(); ++i) {
    PL_CO_CHECK(
        co_await AfterCommit((*written)[i], marks[i], redis::CommentCache::NewHashes::kOnlyCached));
  }
  co_return std::move(*written);
}

Awaitable<Status> CommentService::ReseedIds() {
  PL_CO_CHECK(co_await AllocateId(0, true));
  co_return Status{};
}

void CommentService::SetModeration(ModerationSettings settings,
                                   redis::RecentBodies* recent_bodies) {
  moderation_ = std::move(settings);
  recent_bodies_ = recent_bodies;
}

Awaitable<Result<WriterFacts>> CommentService::FactsOf(const Principal& who, const GuestPost* guest,
                                                       ModerationPolicy policy,
                                                       const std::string& body) {
  WriterFacts facts;
  facts.moderator = guest == nullptr && HasRole(who.role, Role::kModerator);
  // A guest has no history to weigh: under policy first, every guest comment is a first.
  if (guest == nullptr && policy == ModerationPolicy::kFirst && !facts.moderator) {
    PL_CO_TRY(facts.has_approved, co_await table_.HasApproved(who.id));
  }
  facts.guest_held = guest != nullptr && guests_.mode == GuestMode::kModerated;
  if (recent_bodies_ != nullptr && !facts.moderator) {
    const std::string writer = guest != nullptr ? redis::RecentBodies::GuestWriter(guest->address)
                                                : redis::RecentBodies::UserWriter(who.id);
    PL_CO_TRY(const bool fresh,
              co_await recent_bodies_->Claim(writer, body, moderation_.duplicate_window));
    facts.duplicate = !fresh;
  }
  co_return facts;
}

namespace {

// Whether a guest comment may mail its address a confirmation link: when it is published, or
// held only by the site's policy (guests moderated, every comment held, a first comment). A
// comment a spam signal held mails no one: a spammer cannot use Plaudit to mail strangers.
bool MayConfirm(const Verdict& v) {
  for (const auto& reason : v.reasons) {
    if (reason != kHeldGuest && reason != kHeldByPolicy && reason != kHeldFirstComment) {
      return false;
    }
  }
  return true;
}

std::string Joined(const std::vector<std::string>& reasons) {
  std::string out;
  for (const auto& r : reasons) {
    if (!out.empty()) {
      out += ',';
    }
    out += r;
  }
  return out;
}

}  // namespace

Awaitable<Result<Comment>> CommentService::Create(const Principal& who, int64_t article_id,
                                                  CommentInput in) {
  co_return co_await CreateAs(who, nullptr, article_id, std::move(in));
}

Awaitable<Result<Comment>> CommentService::CreateAs(const Principal& who, const GuestPost* guest,
                                                    int64_t article_id, CommentInput in) {
  PL_CO_TRY(std::string body, NormalizeCommentBody(in.body));
  PL_CO_TRY(const Article article, co_await articles_.Get(who, article_id, /*count_view=*/false,
                                                          /*with_body=*/false));
  if (article.status != ArticleStatus::kPublished) {
    co_return Fail(ErrorCode::kPermissionDenied, "comments open once the article is published");
  }
  if (!article.allow_comments) {
    co_return Fail(ErrorCode::kPermissionDenied, "comments are closed on this article");
  }
  if (in.parent_id) {
    // A parent the writer cannot see (another's held comment) is no parent.
    auto parent = co_await Visible(who, *in.parent_id);
    if (!parent) {
      if (parent.error().code != ErrorCode::kNotFound) {
        co_return tl::unexpected(parent.error());
      }
      co_return Fail(ErrorCode::kInvalidArgument,
                     "parentId must be a live comment of this article");
    }
  }
  if (guest == nullptr && new_writer_limiter_ != nullptr && new_writer_limit_.enabled() &&
      !HasRole(who.role, Role::kModerator) &&
      NowMs() - who.created_at_ms < new_writer_limit_.period_ms) {
    PL_CO_CHECK(co_await new_writer_limiter_->Enforce(
        "new-writer", std::to_string(who.id), new_writer_limit_,
        "a new account may post only a few comments at first; try again later"));
  }
  // The article's own policy, else the server's (API.md "Moderation").
  const ModerationPolicy policy = ParsePolicy(article.moderation).value_or(moderation_.policy);
  PL_CO_TRY(const WriterFacts facts, co_await FactsOf(who, guest, policy, body));
  const Submission submission{body, in.honeypot, in.form_age_ms};
  const Verdict verdict = Judge(submission, facts, policy, moderation_.rules);
  if (verdict.refused) {
    co_return tl::unexpected(*verdict.refused);
  }
  PL_CO_TRY(text::SanitizedHtml rendered, co_await Render(article_id, body));
  sql::NewComment nc;
  nc.article_id = article_id;
  nc.parent_id = in.parent_id;
  nc.reply_to_user_id = in.reply_to_user_id;
  nc.author_id = who.id;
  nc.body = body;
  nc.html = std::move(rendered.html);
  nc.now_ms = NowMs();
  nc.status = verdict.status;
  nc.held_reasons = Joined(verdict.reasons);
  if (guest != nullptr) {
    nc.guest = sql::GuestAuthor{guest->identity.name, guest->identity.name_key,
                                guest->identity.email, guest->token_hash, std::nullopt};
    if (guests_.mail && !guest->identity.email.empty() && MayConfirm(verdict)) {
      // The address's confirmation link and unsubscribe key, used if the address is new. The
      // address is kept lower-cased: one address is one row however it is typed, so it gets
      // one confirmation mail, ever, and one unsubscribe stops it.
      std::string address = guest->identity.email;
      for (char& ch : address) {
        ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      }
      const GuestToken link = NewGuestToken();
      nc.guest->confirm =
          sql::GuestAddress{std::move(address), link.token, link.hash, NewGuestToken().token, "en"};
    }
  }
  auto id = co_await AllocateId(article_id, false);
  Result<sql::CommentWrite> w = id ? Result<sql::CommentWrite>{} : tl::unexpected(id.error());
  if (id) {
    nc.id = *id;
    std::function<Awaitable<Result<sql::CommentWrite>>(sql::CacheStamp)> insert =
        [this, &nc, article_id](sql::CacheStamp stamp) -> Awaitable<Result<sql::CommentWrite>> {
      auto copy = nc;
      auto w = co_await table_.Insert(std::move(copy), stamp);
      if (!w && w.error().code == ErrorCode::kAlreadyExists &&
          w.error().message == sql::kCommentIdTaken) {
        // Redis came back with an old sequence: resume above SQL's highest id and retry once.
        spdlog::warn("comment id {} already in SQL; reseeding the sequence", nc.id);
        PL_CO_TRY(nc.id, co_await AllocateId(article_id, true));
        w = co_await table_.Insert(std::move(nc), stamp);
      }
      co_return w;
    };
    w = co_await WriteThread(article_id, std::move(insert));
  }
  if (!w) {
    // Not stored: the same text may be sent again (a retry is no duplicate).
    if (recent_bodies_ != nullptr && !facts.moderator) {
      const std::string writer = guest != nullptr ? redis::RecentBodies::GuestWriter(guest->address)
                                                  : redis::RecentBodies::UserWriter(who.id);
      co_await recent_bodies_->Release(writer, body);
    }
    co_return tl::unexpected(w.error());
  }
  Announce(std::nullopt, *w);
  co_return sql::ToComment(w->rows.front());
}

Awaitable<Result<Comment>> CommentService::Moderate(const Principal& who, int64_t id,
                                                    sql::ModerationAction action) {
  if (!HasRole(who.role, Role::kModerator)) {
    co_return Fail(ErrorCode::kPermissionDenied, "only moderators may moderate comments");
  }
  PL_CO_TRY(const Comment c, co_await Peek(id));
  sql::ModerationLogEntry log;
  log.at_ms = NowMs();
  log.actor_id = who.id;
  std::function<Awaitable<Result<sql::CommentWrite>>(sql::CacheStamp)> act =
      [this, id, action, &log](sql::CacheStamp stamp) {
        return table_.Moderate(id, action, log, stamp);
      };
  PL_CO_TRY(const sql::CommentWrite w, co_await WriteThread(c.article_id, std::move(act)));
  Announce(c, w);
  co_return sql::ToComment(w.rows.front());
}

Awaitable<Result<std::vector<sql::QueuedComment>>> CommentService::Queue(
    const Principal& who, sql::QueueFilter filter, std::optional<int64_t> article_id,
    int64_t after_id, int64_t limit) {
  if (!HasRole(who.role, Role::kModerator)) {
    co_return Fail(ErrorCode::kPermissionDenied, "only moderators may read the queue");
  }
  co_return co_await table_.Queue(filter, article_id, after_id, limit);
}

Awaitable<Status> CommentService::Report(const Principal& who, int64_t id, std::string reason) {
  PL_CO_TRY(const Comment c, co_await Visible(who, id));
  if (c.deleted || !c.Approved()) {
    co_return Fail(ErrorCode::kNotFound, "no such comment");
  }
  // A writer's report of their own comment counts for nothing (204, as a repeat).
  if (c.author.id == who.id) {
    co_return Status{};
  }
  std::function<Awaitable<Result<sql::CommentWrite>>(sql::CacheStamp)> report =
      [this, id, &who, &reason](sql::CacheStamp stamp) -> Awaitable<Result<sql::CommentWrite>> {
    PL_CO_TRY(
        std::optional<sql::CommentWrite> w,
        co_await table_.Report(id, who.id, reason, NowMs(), moderation_.report_threshold, stamp));
    co_return w ? std::move(*w) : sql::CommentWrite{};
  };
  PL_CO_TRY(const sql::CommentWrite w, co_await WriteThread(c.article_id, std::move(report)));
  Announce(c, w);  // a report that held it: gone for readers
  co_return Status{};
}

Awaitable<Result<text::SanitizedHtml>> CommentService::Render(int64_t article_id,
                                                              std::string_view body) {
  text::MarkdownOptions options = text_;
  if (std::vector<std::string> names = text::MentionedNames(body); !names.empty()) {
    PL_CO_TRY(options.mentionable, co_await table_.Participants(article_id, std::move(names)));
  }
  co_return text::RenderCommentMarkdown(body, options);
}

Result<std::string> CommentService::Preview(std::string_view body) const {
  PL_TRY(const std::string text, NormalizeCommentBody(body));
  PL_TRY(text::SanitizedHtml rendered, text::RenderCommentMarkdown(text, text_));
  return std::move(rendered.html);
}

Awaitable<Result<Comment>> CommentService::Edit(const Principal& who, int64_t id,
                                                std::string body) {
  PL_CO_TRY(std::string text, NormalizeCommentBody(body));
  PL_CO_TRY(const Comment c, co_await Visible(who, id));
  if (c.deleted) {
    co_return Fail(ErrorCode::kNotFound, "no such comment");
  }
  if (!HasRole(who.role, Role::kModerator) && !c.Approved()) {
    // What a moderator approves is the text they read in the queue: a held comment keeps it.
    co_return Fail(ErrorCode::kAlreadyExists,
                   "a held comment cannot be edited until it is approved");
  }
  if (!HasRole(who.role, Role::kAdmin)) {
    if (c.author.id != who.id) {
      co_return Fail(ErrorCode::kPermissionDenied, "not your comment");
    }
    if (NowMs() - c.created_at_ms > edit_window_ms_) {
      co_return Fail(ErrorCode::kPermissionDenied, "the edit window of this comment has passed");
    }
  }
  // The new text is judged as a new comment's would be, by what it says (links, spam words).
  const Verdict verdict = JudgeEdit(text, HasRole(who.role, Role::kModerator), moderation_.rules);
  std::string hold = Joined(verdict.reasons);
  PL_CO_TRY(text::SanitizedHtml rendered, co_await Render(c.article_id, text));
  sql::CommentText new_text{std::move(text), std::move(rendered.html)};
  std::function<Awaitable<Result<sql::CommentWrite>>(sql::CacheStamp)> edit =
      [this, id, &new_text, &hold](sql::CacheStamp stamp) {
        return table_.Edit(id, std::move(new_text), NowMs(), std::move(hold), stamp);
      };
  PL_CO_TRY(const sql::CommentWrite w, co_await WriteThread(c.article_id, std::move(edit)));
  Announce(c, w);
  Comment out = sql::ToComment(w.rows.front());
  std::vector<Comment*> one{&out};
  PL_CO_CHECK(co_await AddLikes(who.id, one));
  co_return out;
}

Awaitable<Status> CommentService::Delete(const Principal& who, int64_t id) {
  PL_CO_TRY(const Comment c, co_await Visible(who, id));
  if (c.deleted) {
    co_return Fail(ErrorCode::kNotFound, "no such comment");
  }
  if (c.author.id != who.id && !HasRole(who.role, Role::kAdmin)) {
    co_return Fail(ErrorCode::kPermissionDenied, "not your comment");
  }
  std::function<Awaitable<Result<sql::CommentWrite>>(sql::CacheStamp)> remove =
      [this, id](sql::CacheStamp stamp) { return table_.Delete(id, NowMs(), stamp); };
  PL_CO_TRY(const sql::CommentWrite w, co_await WriteThread(c.article_id, std::move(remove)));
  Announce(c, w);
  co_return Status{};
}

void CommentService::Announce(const std::optional<Comment>& before, const sql::CommentWrite& w) {
  if (live_ == nullptr || w.rows.empty()) {
    return;
  }
  const std::vector<Comment> rows = sql::ToComments(w.rows);
  const Comment& written = rows.front();
  if (const std::optional<LiveKind> kind = LiveKindOf(before, written)) {
    live_->Publish(written.article_id, *kind, written.id);
  }
  // Its top-level comment, when its reply count moved: still what it was to readers, or, a
  // placeholder that has lost its last reply, gone.
  for (size_t i = 1; i < rows.size(); ++i) {
    const Comment& top = rows[i];
    if (top.Listed()) {
      live_->Publish(top.article_id, LiveKind::kUpdated, top.id);
    } else if (top.deleted || top.status == CommentStatus::kSpam) {
      live_->Publish(top.article_id, LiveKind::kGone, top.id);
    }
  }
}

Awaitable<Result<sql::CommentWrite>> CommentService::WriteThread(
    int64_t article_id,
    std::function<Awaitable<Result<sql::CommentWrite>>(sql::CacheStamp)> write) {
  const auto target = redis::CacheTarget::OfThread(article_id);
  PL_CO_TRY(const redis::CacheMark mark, co_await articles_.MarkWrite(target));
  const sql::CacheStamp stamp{mark.shard, mark.seq, article_id};
  auto w = co_await write(stamp);
  if (!w) {
    co_await articles_.UnmarkUnless(mark, w.error());
    co_return tl::unexpected(w.error());
  }
  PL_CO_CHECK(co_await AfterCommit(*w, mark));
  co_return std::move(w);
}

Awaitable<Status> CommentService::Reflect(const sql::CommentWrite& w,
                                          redis::CommentCache::NewHashes hashes) {
  if (faults_.comment_reflect_fails && faults_.comment_reflect_fails()) {
    co_return Fail(ErrorCode::kUnavailable, "test hook");
  }
  const int64_t article_id = w.rows.front().article_id;
  const std::vector<Comment> comments = sql::ToComments(w.rows);
  PL_CO_CHECK(co_await cache_.Put(article_id, comments, hashes));
  co_return co_await articles_.SetCommentCount(article_id, w.article_comment_count,
                                               w.article_comment_ver);
}

Awaitable<Status> CommentService::AfterCommit(const sql::CommentWrite& w,
                                              const redis::CacheMark& mark,
                                              redis::CommentCache::NewHashes hashes) {
  if (w.rows.empty()) {
    co_await articles_.Unmark(mark);
    co_return Status{};
  }
  auto st = co_await Reflect(w, hashes);
  if (st) {
    co_await articles_.Unmark(mark);
    co_return Status{};
  }
  // Committed in SQL either way: make the cache forget rather than serve a stale thread, and
  // the written comments' own hashes at once (single reads and likes trust them).
  const int64_t article_id = w.rows.front().article_id;
  std::vector<int64_t> written;
  written.reserve(w.rows.size());
  for (const auto& row : w.rows) {
    written.push_back(row.id);
  }
  if (auto forgot = co_await cache_.Forget(written); !forgot) {
    spdlog::warn("comments of article {} not forgotten ({}); the rebuild rewrites them", article_id,
                 forgot.error().message);
  }
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
  PL_CO_CHECK(co_await cache_.Invalidate(article_id));
  PL_CO_CHECK(co_await articles_.RefreshCommentCount(article_id));
  // A comment's own hash is read without its thread (single reads, likes' one-call path), so
  // dropping the thread is not enough: a writer that died between its commit and its Redis
  // step (a cache mark's repair) left a hash older than its row. Rebuilding now rewrites every
  // comment of the thread from SQL (versioned: nothing newer is undone), held ones included.
  co_return co_await repo_.EnsureLoaded(article_id);
}

Awaitable<Result<int64_t>> CommentService::RepairPending() {
  std::function<Awaitable<Status>(int64_t)> repair = [this](int64_t id) { return Repair(id); };
  co_return co_await pending_repairs_.Retry(std::move(repair));
}

Awaitable<Result<LikeState>> CommentService::Like(const Principal& who, int64_t id, bool like) {
  const model::Target target = model::Target::Comment(id);
  if (auto it = article_of_.find(id); it != article_of_.end()) {
    // Warm: one script call, which checks the article (published) and the comment (not
    // deleted) as Redis holds them; anything else (a draft, not cached) is checked below.
    redis::HotOrder hot{it->second.article_id, std::nullopt};
    if (it->second.parent_id != 0) {
      hot.parent_id = it->second.parent_id;
    }
    const int64_t article_id = it->second.article_id;
    PL_CO_TRY(auto fast, co_await likes_.SetIfPublished(who, target, like, &hot));
    if (fast) {
      AnnounceLike(article_id, id);
      co_return *fast;
    }
  }
  PL_CO_TRY(const Comment c, co_await Peek(id));
  Learn(c);
  PL_CO_TRY(const LikeState state, co_await SetLike(who, c, like));
  AnnounceLike(c.article_id, id);
  co_return state;
}

void CommentService::AnnounceLike(int64_t article_id, int64_t comment_id) {
  if (live_ != nullptr) {
    live_->Liked(article_id, comment_id);
  }
}

Awaitable<Result<LikeState>> CommentService::SetLike(const Principal& who, const Comment& c,
                                                     bool like) {
  // Only a live approved comment takes likes (not a held one, nor a placeholder), and not a
  // reply its held top-level comment keeps from readers.
  if (c.deleted || !c.Approved()) {
    co_return Fail(ErrorCode::kNotFound, "no such comment");
  }
  if (c.parent_id) {
    PL_CO_TRY(const Comment top, co_await Peek(*c.parent_id));
    if (!top.deleted && top.status == CommentStatus::kPending) {
      co_return Fail(ErrorCode::kNotFound, "no such comment");
    }
  }
  auto article = co_await articles_.Peek(c.article_id);
  if (!article) {
    if (article.error().code == ErrorCode::kNotFound) {
      co_return Fail(ErrorCode::kNotFound, "no such comment");
    }
    co_return tl::unexpected(article.error());
  }
  if (!CanSee(*article, who)) {
    co_return Fail(ErrorCode::kNotFound, "no such comment");
  }
  const redis::HotOrder hot{c.article_id, c.parent_id};
  const model::Target target = model::Target::Comment(c.id);
  co_return co_await likes_.Set(who, target, like, &hot);
}

}  // namespace plaudit::domain
