#include "redis/article_cache.hpp"

#include <algorithm>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <charconv>
#include <cstdio>

#include "redis/keys.hpp"
#include "redis/scan.hpp"

namespace plaudit::redis {

using namespace boost::asio::experimental::awaitable_operators;

namespace {

// Every cached field of an article, in the order article_view.lua returns them.
const std::vector<std::string> kArticleFields = {
    "id",           "kind",   "author_id", "author_username", "author_display", "title",
    "summary",      "status", "pinned",    "allow_comments",  "created_at",     "updated_at",
    "published_at", "views",  "likes",     "comments",        "comments_ver"};

constexpr std::string_view kLists[] = {"all", "article", "post"};
const std::string kSentinel = ListMember(0);

ArticleFields ToFields(const Reply& arr) {
  ArticleFields f;
  for (size_t i = 0; i < arr.elements.size() && i < kArticleFields.size(); ++i) {
    if (!arr.elements[i].is_nil()) f[kArticleFields[i]] = arr.elements[i].str;
  }
  return f;
}

Result<std::optional<ListPage>> ToPage(const Result<Reply>& r) {
  if (auto st = ReplyOk(r); !st) return tl::unexpected(st.error());
  if (r->is_nil() || r->elements.size() != 2) return std::optional<ListPage>{};
  ListPage page;
  page.total = r->elements[0].integer;
  const auto& items = r->elements[1].elements;
  for (size_t i = 0; i + 1 < items.size(); i += 2) {
    ListEntry e;
    e.id = std::stoll(items[i].str);
    e.score = static_cast<int64_t>(std::stod(items[i + 1].str));
    page.entries.push_back(e);
  }
  return std::optional<ListPage>(std::move(page));
}

}  // namespace

std::string ListMember(int64_t id) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "%019lld", static_cast<long long>(id));
  return buf;
}

const std::vector<std::string>& ArticleCache::FieldNames() { return kArticleFields; }

int64_t ArticleCache::ListScore(bool pinned, int64_t published_at_ms) {
  return (pinned ? (int64_t{1} << 51) : 0) + published_at_ms;
}

Awaitable<Result<std::optional<int64_t>>> ArticleCache::NextId(int64_t floor) {
  std::vector<std::string> keys{std::string(keys::kArticleSeq)};
  std::vector<std::string> args{std::to_string(floor)};
  auto r = co_await client_.Eval(GetScript("next_id.lua"), std::move(keys), std::move(args));
  if (auto st = ReplyOk(r); !st) co_return tl::unexpected(st.error());
  if (r->is_nil()) co_return std::optional<int64_t>{};
  co_return std::optional<int64_t>(r->integer);
}

Awaitable<Result<std::optional<ArticleCache::Cached>>> ArticleCache::Get(int64_t id,
                                                                         bool count_view,
                                                                         bool with_body) {
  // The script, the body read and the view mark leave in one write: one round trip.
  std::vector<std::string> keys{keys::Article(id)};
  std::vector<std::string> args{count_view ? "1" : "0"};
  args.insert(args.end(), kArticleFields.begin(), kArticleFields.end());
  auto fields_reply = client_.Eval(GetScript("article_view.lua"), std::move(keys), std::move(args));
  // The view mark goes out after the script (same connection, so Redis runs it after the
  // increment: a flush that claims the id reads a count that holds this view) and before
  // the script says whether a view was counted: a mark for a draft or an uncached article
  // is harmless (the flusher rewrites SQL's own value, or skips an article with no cached
  // count). Unless the script had to be loaded first (its first use, or NOSCRIPT after a
  // Redis restart): then the mark ran before the increment, and a claim in between missed
  // this view until the article's next one, so the mark goes again after the reply.
  const uint64_t loads = client_.stats().script_loads;
  std::vector<std::vector<std::string>> reads;
  if (with_body) reads.push_back({"GET", keys::ArticleBody(id)});
  if (count_view) reads.push_back({"SADD", std::string(keys::kViewsDirty), std::to_string(id)});
  if (!reads.empty()) {
    auto reads_reply = client_.Pipeline(std::move(reads));
    auto both = co_await (std::move(fields_reply) && std::move(reads_reply));
    Result<Reply>& f = std::get<0>(both);
    Result<std::vector<Reply>>& rest = std::get<1>(both);
    if (auto st = ReplyOk(f); !st) co_return tl::unexpected(st.error());
    if (auto st = AllOk(rest); !st) co_return tl::unexpected(st.error());
    if (count_view && !f->is_nil() && client_.stats().script_loads != loads) {
      std::vector<std::string> mark{"SADD", std::string(keys::kViewsDirty), std::to_string(id)};
      if (auto st = ReplyOk(co_await client_.Command(std::move(mark))); !st) {
        co_return tl::unexpected(st.error());
      }
    }
    if (f->is_nil()) co_return std::optional<Cached>{};
    std::optional<std::string> body;
    if (with_body && !rest->front().is_nil()) body = std::move(rest->front().str);
    co_return std::optional<Cached>(Cached{ToFields(*f), std::move(body)});
  }
  auto f = co_await std::move(fields_reply);
  if (auto st = ReplyOk(f); !st) co_return tl::unexpected(st.error());
  if (f->is_nil()) co_return std::optional<Cached>{};
  co_return std::optional<Cached>(Cached{ToFields(*f), std::nullopt});
}

namespace {

// Who may see an article: the fields GetAccess reads.
const std::vector<std::string>& AccessFields() {
  static const std::vector<std::string> kAccess = {"id", "status", "author_id"};
  return kAccess;
}

std::vector<std::string> AccessCommand(int64_t id) {
  std::vector<std::string> cmd{"HMGET", keys::Article(id)};
  cmd.insert(cmd.end(), AccessFields().begin(), AccessFields().end());
  return cmd;
}

// An HMGET reply of AccessCommand; empty when the article is not cached.
ArticleFields AccessOf(const Reply& r) {
  ArticleFields f;
  for (size_t i = 0; i < r.elements.size() && i < AccessFields().size(); ++i) {
    if (!r.elements[i].is_nil()) f[AccessFields()[i]] = r.elements[i].str;
  }
  if (!f.count("id") || !f.count("status")) f.clear();
  return f;
}

}  // namespace

Awaitable<Result<ArticleFields>> ArticleCache::GetAccess(int64_t id) {
  auto r = co_await client_.Command(AccessCommand(id));
  if (auto st = ReplyOk(r); !st) co_return tl::unexpected(st.error());
  co_return AccessOf(*r);
}

Awaitable<Result<std::vector<bool>>> ArticleCache::InPublishedIndex(
    const std::vector<int64_t>& ids) {
  std::vector<bool> out;
  if (ids.empty()) co_return out;
  std::vector<std::string> cmd{"ZMSCORE", keys::PublishedList("all")};
  cmd.reserve(2 + ids.size());
  for (int64_t id : ids) cmd.push_back(ListMember(id));
  auto r = co_await client_.Command(std::move(cmd));
  if (auto st = ReplyOk(r); !st) co_return tl::unexpected(st.error());
  out.reserve(ids.size());
  for (size_t i = 0; i < ids.size(); ++i) {
    out.push_back(i < r->elements.size() && !r->elements[i].is_nil());
  }
  co_return out;
}

Awaitable<Result<std::vector<ArticleFields>>> ArticleCache::GetAccessMany(
    const std::vector<int64_t>& ids) {
  std::vector<ArticleFields> out;
  if (ids.empty()) co_return out;
  std::vector<std::vector<std::string>> cmds;
  cmds.reserve(ids.size());
  for (int64_t id : ids) cmds.push_back(AccessCommand(id));
  auto r = co_await client_.Pipeline(std::move(cmds));
  if (auto st = AllOk(r); !st) co_return tl::unexpected(st.error());
  out.reserve(r->size());
  for (const auto& reply : *r) out.push_back(AccessOf(reply));
  co_return out;
}

Awaitable<Result<std::vector<ArticleFieldList>>> ArticleCache::GetMany(
    const std::vector<int64_t>& ids) {
  // HGETALL, not HMGET of the 17 names: Redis walks the small hash once instead of searching
  // it per name, and plauditd formats 2 arguments instead of 19 per article (an article list
  // page is 20 of these; both costs showed in its profile).
  std::vector<std::vector<std::string>> cmds;
  cmds.reserve(ids.size());
  for (int64_t id : ids) cmds.push_back({"HGETALL", keys::Article(id)});
  std::vector<ArticleFieldList> out;
  if (cmds.empty()) co_return out;
  auto r = co_await client_.Pipeline(std::move(cmds));
  if (auto st = AllOk(r); !st) co_return tl::unexpected(st.error());
  out.reserve(r->size());
  for (auto& reply : *r) {
    ArticleFieldList f;
    auto& kv = reply.elements;  // ours: the strings move out
    f.reserve(kv.size() / 2);
    bool has_id = false;
    for (size_t i = 0; i + 1 < kv.size(); i += 2) {
      has_id = has_id || kv[i].str == "id";
      f.emplace_back(std::move(kv[i].str), std::move(kv[i + 1].str));
    }
    if (!has_id) f.clear();  // not cached
    out.push_back(std::move(f));
  }
  co_return out;
}

namespace {

// article_put.lua's arguments after the mode: the version, the birth mark's value, the body
// flag (and body), then the fields with 'status' first: like_set.lua reads it on every article
// like, and HGET scans a small (listpack) hash from the front; in name order it was the 13th
// field of 17 (~1,900 more Redis instructions a like, callgrind).
std::vector<std::string> PutArgs(std::string_view mode, int64_t ver, std::string_view token,
                                 const ArticleFields& fields, const std::string* body) {
  std::vector<std::string> args;
  args.reserve(6 + 2 * fields.size());
  args.emplace_back(mode);
  args.push_back(std::to_string(ver));
  args.emplace_back(token);
  if (body) {
    args.push_back("1");
    args.push_back(*body);
  } else {
    args.push_back("0");
  }
  if (auto it = fields.find("status"); it != fields.end()) {
    args.push_back(it->first);
    args.push_back(it->second);
  }
  for (const auto& [k, v] : fields) {
    if (k == "status" || k == "ver" || k == "body_ver") continue;
    args.push_back(k);
    args.push_back(v);
  }
  return args;
}

std::vector<std::string> PutKeys(int64_t id) {
  return {keys::Article(id), keys::ArticleBody(id), keys::ArticleFloor(id),
          keys::LikeBirthMark(keys::LikeShard(id))};
}

}  // namespace

Awaitable<Result<ArticleCache::Filled>> ArticleCache::Put(std::string_view mode, int64_t id,
                                                          const ArticleFields& fields, int64_t ver,
                                                          std::string_view token,
                                                          const std::string* body) {
  auto r = co_await client_.Eval(GetScript("article_put.lua"), PutKeys(id),
                                 PutArgs(mode, ver, token, fields, body));
  if (auto st = ReplyOk(r); !st) co_return tl::unexpected(st.error());
  Filled out;
  if (r->type == Reply::Type::kArray) {
    auto& kv = r->elements;
    out.fields.reserve(kv.size() / 2);
    for (size_t i = 0; i + 1 < kv.size(); i += 2) {
      out.fields.emplace_back(std::move(kv[i].str), std::move(kv[i + 1].str));
    }
  } else if (r->str == "unchecked") {
    out.state = Filled::State::kUnchecked;
  } else if (r->str == "gone") {
    out.state = Filled::State::kGone;
  } else if (r->str == "stale") {
    out.state = Filled::State::kStale;
  } else if (r->type != Reply::Type::kInteger) {
    co_return Fail(ErrorCode::kInternal, "unexpected article_put.lua reply");
  }
  co_return out;
}

Awaitable<Status> ArticleCache::Create(int64_t id, const ArticleFields& fields, int64_t ver,
                                       const std::string* body) {
  auto r = co_await Put("create", id, fields, ver, "", body);
  if (!r) co_return tl::unexpected(r.error());
  co_return Status{};
}

Awaitable<Result<std::optional<std::string>>> ArticleCache::FillToken(int64_t id) {
  std::vector<std::string> cmd{"GET", keys::LikeBirthMark(keys::LikeShard(id))};
  auto r = co_await client_.Command(std::move(cmd));
  if (auto st = ReplyOk(r); !st) co_return tl::unexpected(st.error());
  if (r->is_nil()) co_return std::optional<std::string>{};
  co_return std::optional<std::string>(std::move(r->str));
}

Awaitable<Result<std::vector<std::optional<std::string>>>> ArticleCache::FillTokens(
    const std::vector<int64_t>& ids) {
  std::vector<std::optional<std::string>> out;
  if (ids.empty()) co_return out;
  std::vector<std::vector<std::string>> cmds;
  cmds.reserve(ids.size());
  for (int64_t id : ids) cmds.push_back({"GET", keys::LikeBirthMark(keys::LikeShard(id))});
  auto r = co_await client_.Pipeline(std::move(cmds));
  if (auto st = AllOk(r); !st) co_return tl::unexpected(st.error());
  out.reserve(r->size());
  for (auto& reply : *r) {
    if (reply.is_nil()) {
      out.emplace_back();
    } else {
      out.emplace_back(std::move(reply.str));
    }
  }
  co_return out;
}

Awaitable<Result<ArticleCache::Filled>> ArticleCache::Fill(int64_t id, const ArticleFields& fields,
                                                           int64_t ver, const std::string& token,
                                                           const std::string* body) {
  co_return co_await Put("fill", id, fields, ver, token, body);
}

Awaitable<Status> ArticleCache::Write(int64_t id, const ArticleFields& fields, int64_t ver,
                                      const std::string* body) {
  auto r = co_await Put("write", id, fields, ver, "", body);
  if (!r) co_return tl::unexpected(r.error());
  co_return Status{};
}

Awaitable<Status> ArticleCache::SetCommentCount(int64_t id, int64_t count, int64_t ver) {
  std::vector<std::string> keys{keys::Article(id), keys::ArticleFloor(id)};
  std::vector<std::string> args{std::to_string(ver), std::to_string(count)};
  co_return ReplyOk(
      co_await client_.Eval(GetScript("article_comments.lua"), std::move(keys), std::move(args)));
}

Awaitable<Status> ArticleCache::Remove(int64_t id, const std::vector<int64_t>& comment_ids) {
  // The mark first: from then on no write or fill caches the article again (article_put.lua),
  // also one that read SQL before the delete and lands after these commands.
  std::vector<std::vector<std::string>> cmds{
      {"HSET", keys::ArticleFloor(id), "v", std::to_string(kDeletedVersion)},
      {"EXPIRE", keys::ArticleFloor(id), "86400"},
      {"UNLINK", keys::Article(id), keys::ArticleBody(id)},
      {"SREM", std::string(keys::kViewsDirty), std::to_string(id)},
      {"ZREM", std::string(keys::kViewsInFlight), std::to_string(id)},
      // Its comments' cache: the meta key and indexes, then each comment's hash and reply
      // indexes (all in the article's shard, so one UNLINK each batch is one slot).
      {"UNLINK", keys::CommentMeta(id), keys::CommentsByTime(id), keys::CommentsByLikes(id)}};
  constexpr size_t kBatch = 128;
  for (size_t i = 0; i < comment_ids.size(); i += kBatch) {
    std::vector<std::string> unlink{"UNLINK"};
    for (size_t j = i; j < std::min(comment_ids.size(), i + kBatch); ++j) {
      unlink.push_back(keys::Comment(comment_ids[j]));
      unlink.push_back(keys::RepliesByTime(comment_ids[j]));
      unlink.push_back(keys::RepliesByLikes(comment_ids[j]));
    }
    cmds.push_back(std::move(unlink));
  }
  co_return AllOk(co_await client_.Pipeline(std::move(cmds)));
}

Awaitable<Result<std::optional<ListPage>>> ArticleCache::Page(std::string_view list, int64_t start,
                                                              int64_t count) {
  std::vector<std::string> keys{keys::PublishedList(list)};
  std::vector<std::string> args{kSentinel, "rank", std::to_string(start), std::to_string(count)};
  co_return ToPage(
      co_await client_.Eval(GetScript("list_page.lua"), std::move(keys), std::move(args)));
}

Awaitable<Result<std::optional<ListPage>>> ArticleCache::PageAfter(std::string_view list,
                                                                   int64_t score, int64_t id,
                                                                   int64_t count) {
  std::vector<std::string> keys{keys::PublishedList(list)};
  std::vector<std::string> args{kSentinel, "after", std::to_string(score), ListMember(id),
                                std::to_string(count)};
  co_return ToPage(
      co_await client_.Eval(GetScript("list_page.lua"), std::move(keys), std::move(args)));
}

Awaitable<Result<bool>> ArticleCache::IndexChange(int64_t id, std::string_view kind, int64_t score,
                                                  int64_t ver) {
  std::vector<std::string> keys;
  keys.reserve(7);
  for (auto list : kLists) {
    keys.push_back(keys::PublishedList(list));
    keys.push_back(keys::PublishedListRebuild(list));
  }
  keys.push_back(keys::PublishedListVersion(id));
  std::vector<std::string> args{kind.empty() ? "rem" : "add", ListMember(id), std::to_string(score),
                                std::to_string(ver), std::string(kind)};
  auto r = co_await client_.Eval(GetScript("index_update.lua"), std::move(keys), std::move(args));
  if (auto st = ReplyOk(r); !st) co_return tl::unexpected(st.error());
  co_return r->integer == 1;
}

Awaitable<Result<bool>> ArticleCache::IndexAdd(std::string_view kind, int64_t id, int64_t score,
                                               int64_t ver) {
  co_return co_await IndexChange(id, kind, score, ver);
}

Awaitable<Result<bool>> ArticleCache::IndexRemove(int64_t id, int64_t ver) {
  co_return co_await IndexChange(id, "", 0, ver);
}

Awaitable<Result<bool>> ArticleCache::TryLockRebuild(const std::string& owner) {
  std::vector<std::string> cmd{"SET", std::string(keys::kPublishedListLock), owner, "NX",
                               "PX",  std::to_string(kRebuildLeaseMs)};
  auto r = co_await client_.Command(std::move(cmd));
  if (auto st = ReplyOk(r); !st) co_return tl::unexpected(st.error());
  co_return !r->is_nil();
}

Awaitable<Result<bool>> ArticleCache::RebuildStep(std::string_view step, const std::string& owner,
                                                  std::vector<std::string> extra) {
  std::vector<std::string> keys{std::string(keys::kPublishedListLock)};
  for (auto list : kLists) keys.push_back(keys::PublishedListRebuild(list));
  for (auto list : kLists) keys.push_back(keys::PublishedList(list));
  std::vector<std::string> args{std::string(step), owner, std::to_string(kRebuildLeaseMs),
                                kSentinel};
  args.insert(args.end(), std::make_move_iterator(extra.begin()),
              std::make_move_iterator(extra.end()));
  auto r = co_await client_.Eval(GetScript("index_rebuild.lua"), std::move(keys), std::move(args));
  if (auto st = ReplyOk(r); !st) co_return tl::unexpected(st.error());
  co_return r->integer == 1;
}

Awaitable<Result<bool>> ArticleCache::BeginRebuild(const std::string& owner) {
  std::vector<std::string> extra;
  co_return co_await RebuildStep("begin", owner, std::move(extra));
}

Awaitable<Result<bool>> ArticleCache::RebuildAdd(const std::string& owner,
                                                 const std::vector<RebuildEntry>& entries) {
  std::vector<std::string> extra;
  extra.reserve(5 * entries.size());
  for (const auto& e : entries) {
    extra.push_back(std::to_string(e.id));
    extra.push_back(std::to_string(e.score));
    extra.push_back(std::to_string(e.ver));
    extra.emplace_back(e.kind);
    extra.push_back(ListMember(e.id));
  }
  co_return co_await RebuildStep("add", owner, std::move(extra));
}

Awaitable<Result<bool>> ArticleCache::FinishRebuild(const std::string& owner) {
  std::vector<std::string> extra;
  co_return co_await RebuildStep("finish", owner, std::move(extra));
}

Awaitable<Result<ArticleCache::ViewClaim>> ArticleCache::ClaimViews(int64_t max) {
  std::vector<std::string> keys{std::string(keys::kViewsDirty), std::string(keys::kViewsInFlight),
                                std::string(keys::kViewsSeq)};
  std::vector<std::string> args{std::to_string(max)};
  auto r = co_await client_.Eval(GetScript("view_claim.lua"), std::move(keys), std::move(args));
  if (auto st = ReplyOk(r); !st) co_return tl::unexpected(st.error());
  ViewClaim claim;
  std::vector<ClaimedView>& out = claim.views;
  const auto& items = r->elements;
  if (items.empty()) co_return claim;
  out.reserve(items.size() / 2);
  std::vector<std::vector<std::string>> reads;
  reads.reserve(items.size() / 2);
  for (size_t i = 0; i + 1 < items.size(); i += 2) {
    auto id = items[i].AsInt();
    if (!id || *id <= 0) continue;  // not an id; it stays in flight, harmless
    ClaimedView v;
    v.id = *id;
    v.seq = items[i + 1].str;
    reads.push_back({"HGET", keys::Article(v.id), "views"});
    out.push_back(std::move(v));
  }
  if (out.empty()) co_return claim;
  // Read after the claim: every view marked before it is in these counts. A failure here
  // leaves the ids in flight for the next pass.
  auto views = co_await client_.Pipeline(std::move(reads));
  if (auto st = AllOk(views); !st) co_return tl::unexpected(st.error());
  for (size_t i = 0; i < out.size(); ++i) {
    if (auto n = (*views)[i].AsInt()) out[i].views = *n;
  }
  // The stamp after the reads (the connection runs them in order): SQL gets it with these
  // counts, so a Redis restored from a snapshot taken before this point is seen as older.
  std::vector<std::string> seq_key{std::string(keys::kViewsSeq)};
  std::vector<std::string> no_args;
  auto stamp =
      co_await client_.Eval(GetScript("view_stamp.lua"), std::move(seq_key), std::move(no_args));
  if (auto st = ReplyOk(stamp); !st) co_return tl::unexpected(st.error());
  auto n = stamp->AsInt();
  if (!n) co_return Fail(ErrorCode::kInternal, "unexpected view_stamp.lua reply");
  claim.stamp = *n;
  co_return claim;
}

Awaitable<Status> ArticleCache::ViewsDone(const std::vector<ClaimedView>& claimed) {
  if (claimed.empty()) co_return Status{};
  std::vector<std::string> keys{std::string(keys::kViewsInFlight)};
  std::vector<std::string> args;
  args.reserve(2 * claimed.size());
  for (const auto& v : claimed) {
    args.push_back(std::to_string(v.id));
    args.push_back(v.seq);
  }
  co_return ReplyOk(
      co_await client_.Eval(GetScript("view_done.lua"), std::move(keys), std::move(args)));
}

Awaitable<Result<ArticleCache::ViewCheck>> ArticleCache::CheckViews(int64_t sql_seq, bool force,
                                                                    const std::string& owner,
                                                                    int64_t lease_ms) {
  std::vector<std::string> keys{std::string(keys::kViewsSeq), std::string(keys::kViewsBirthMark),
                                std::string(keys::kViewsRecoveryMark)};
  std::vector<std::string> args{std::to_string(sql_seq), owner, std::to_string(lease_ms),
                                force ? "1" : "0"};
  auto r = co_await client_.Eval(GetScript("view_check.lua"), std::move(keys), std::move(args));
  if (auto st = ReplyOk(r); !st) co_return tl::unexpected(st.error());
  switch (r->integer) {
    case 0:
      co_return ViewCheck::kConsistent;
    case 1:
      co_return ViewCheck::kRecover;
    case 2:
      co_return ViewCheck::kBusy;
    default:
      co_return Fail(ErrorCode::kInternal, "unexpected view_check.lua reply");
  }
}

Awaitable<Status> ArticleCache::DropArticles() {
  // Version floors stay: a fill that read its row before the write or delete that left one
  // may still land.
  std::function<bool(std::string_view)> article = [](std::string_view key) {
    return keys::IsArticleCache(key) && !key.ends_with(":floor");
  };
  if (auto st = co_await UnlinkMatching(client_, "pl:art:*", std::move(article)); !st) co_return st;
  // The lists may name articles in the state the older Redis had: rebuilt on the next read.
  std::vector<std::vector<std::string>> lists;
  for (auto list : kLists) lists.push_back({"UNLINK", keys::PublishedList(list)});
  co_return AllOk(co_await client_.Pipeline(std::move(lists)));
}

Awaitable<Result<std::vector<int64_t>>> ArticleCache::CachedIds() {
  std::vector<int64_t> ids;
  std::string cursor = "0";
  do {
    std::vector<std::string> scan{"SCAN", cursor, "MATCH", "pl:art:{*}:*", "COUNT", "1000"};
    auto r = co_await client_.Command(std::move(scan));
    if (auto st = ReplyOk(r); !st) co_return tl::unexpected(st.error());
    if (r->elements.size() != 2) co_return Fail(ErrorCode::kInternal, "unexpected SCAN reply");
    cursor = r->elements[0].str;
    for (const auto& key : r->elements[1].elements) {
      // "pl:art:{lN}:<id>" exactly: not the body or floor beside it.
      const std::string& k = key.str;
      const auto colon = k.rfind(':');
      if (colon == std::string::npos || !keys::IsArticleCache(k)) continue;
      int64_t id = 0;
      const char* first = k.data() + colon + 1;
      const char* last = k.data() + k.size();
      auto [end, ec] = std::from_chars(first, last, id);
      if (ec == std::errc{} && end == last && id > 0 && k == keys::Article(id)) ids.push_back(id);
    }
  } while (cursor != "0");
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());  // SCAN may repeat a key
  co_return ids;
}

Awaitable<Result<bool>> ArticleCache::DropIfFlushed(int64_t id, int64_t sql_views) {
  std::vector<std::string> keys{keys::Article(id), keys::ArticleBody(id)};
  std::vector<std::string> args{std::to_string(sql_views)};
  auto r = co_await client_.Eval(GetScript("article_drop.lua"), std::move(keys), std::move(args));
  if (auto st = ReplyOk(r); !st) co_return tl::unexpected(st.error());
  co_return r->integer == 1;
}

Awaitable<Result<bool>> ArticleCache::FinishViewRecovery(const std::string& owner) {
  std::vector<std::string> keys{std::string(keys::kViewsRecoveryMark)};
  std::vector<std::string> args{owner};
  auto r = co_await client_.Eval(GetScript("view_recovered.lua"), std::move(keys), std::move(args));
  if (auto st = ReplyOk(r); !st) co_return tl::unexpected(st.error());
  co_return r->integer == 1;
}

}  // namespace plaudit::redis
