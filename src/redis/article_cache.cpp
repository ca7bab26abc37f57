#include "redis/article_cache.hpp"

#include <algorithm>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <charconv>
#include <cstdio>

#include "redis/client/scan.hpp"
#include "redis/keys.hpp"
#include "redis/script.hpp"

namespace plaudit::redis {

using namespace boost::asio::experimental::awaitable_operators;

namespace {

// article_view.lua's reply (the fields in ArticleFieldNames()' order) as the article.
Result<model::Article> ArticleOf(const Reply& arr) {
  const auto& names = ArticleFieldNames();
  ArticleFields f;
  for (size_t i = 0; i < arr.elements.size() && i < names.size(); ++i) {
    if (!arr.elements[i].is_nil()) {
      f[names[i]] = arr.elements[i].str;
    }
  }
  auto a = DecodeArticle(f);
  if (!a) {
    return Fail(ErrorCode::kInternal, "corrupt cached article");
  }
  return std::move(*a);
}

// An HGETALL reply as the article; nullopt when it is not cached. The reply's strings move out.
std::optional<model::Article> HashArticle(Reply& reply) {
  ArticleFieldList f;
  auto& kv = reply.elements;
  f.reserve(kv.size() / 2);
  bool has_id = false;
  for (size_t i = 0; i + 1 < kv.size(); i += 2) {
    has_id = has_id || kv[i].str == "id";
    f.emplace_back(std::move(kv[i].str), std::move(kv[i + 1].str));
  }
  if (!has_id) {
    return std::nullopt;
  }
  return DecodeArticle(f);
}

// One command per id, sent in one round trip (none for no ids), and `decode(reply)` of each
// reply in ids' order; the replies are decode's to move from.
template <class T, class CommandOf, class Decode>
Awaitable<Result<std::vector<T>>> PerId(Client& client, const std::vector<int64_t>& ids,
                                        CommandOf command_of, Decode decode) {
  std::vector<T> out;
  if (ids.empty()) {
    co_return out;
  }
  std::vector<std::vector<std::string>> cmds;
  cmds.reserve(ids.size());
  for (int64_t id : ids) {
    cmds.push_back(command_of(id));
  }
  auto r = co_await client.Pipeline(std::move(cmds));
  PL_CO_CHECK(AllOk(r));
  out.reserve(r->size());
  for (auto& reply : *r) {
    out.push_back(decode(reply));
  }
  co_return out;
}

}  // namespace

Awaitable<Result<std::optional<int64_t>>> ArticleCache::NextId(int64_t floor) {
  std::vector<std::string> keys{std::string(keys::kArticleSeq)};
  std::vector<std::string> args{std::to_string(floor)};
  auto r = co_await client_.Eval(GetScript("next_id.lua"), std::move(keys), std::move(args));
  PL_CO_CHECK(ReplyOk(r));
  if (r->is_nil()) {
    co_return std::optional<int64_t>{};
  }
  co_return std::optional<int64_t>(r->integer);
}

Awaitable<Result<std::optional<ArticleCache::Cached>>> ArticleCache::Get(int64_t id,
                                                                         bool count_view,
                                                                         bool with_body) {
  // The script, the body read and the view mark leave in one write: one round trip.
  std::vector<std::string> keys{keys::Article(id)};
  std::vector<std::string> args{count_view ? "1" : "0"};
  args.insert(args.end(), ArticleFieldNames().begin(), ArticleFieldNames().end());
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
  if (with_body) {
    reads.push_back({"GET", keys::ArticleBody(id)});
  }
  if (count_view) {
    reads.push_back({"SADD", std::string(keys::kViewsDirty), std::to_string(id)});
  }
  if (!reads.empty()) {
    auto reads_reply = client_.Pipeline(std::move(reads));
    auto both = co_await (std::move(fields_reply) && std::move(reads_reply));
    Result<Reply>& f = std::get<0>(both);
    Result<std::vector<Reply>>& rest = std::get<1>(both);
    PL_CO_CHECK(ReplyOk(f));
    PL_CO_CHECK(AllOk(rest));
    if (count_view && !f->is_nil() && client_.stats().script_loads != loads) {
      std::vector<std::string> mark{"SADD", std::string(keys::kViewsDirty), std::to_string(id)};
      PL_CO_CHECK(ReplyOk(co_await client_.Command(std::move(mark))));
    }
    if (f->is_nil()) {
      co_return std::optional<Cached>{};
    }
    std::optional<std::string> body;
    if (with_body && !rest->front().is_nil()) {
      body = std::move(rest->front().str);
    }
    PL_CO_TRY(auto article, ArticleOf(*f));
    co_return std::optional<Cached>(Cached{std::move(article), std::move(body)});
  }
  auto f = co_await std::move(fields_reply);
  PL_CO_CHECK(ReplyOk(f));
  if (f->is_nil()) {
    co_return std::optional<Cached>{};
  }
  PL_CO_TRY(auto article, ArticleOf(*f));
  co_return std::optional<Cached>(Cached{std::move(article), std::nullopt});
}

namespace {

// Who may see an article: the fields GetAccess reads; with the counts, GetCountsMany's.
const std::vector<std::string>& AccessFields() {
  static const std::vector<std::string> kAccess = {"id", "status", "author_id"};
  return kAccess;
}
const std::vector<std::string>& CountFields() {
  static const std::vector<std::string> kCounts = {"id", "status", "author_id", "views",
                                                   "comments"};
  return kCounts;
}

std::vector<std::string> HmgetOf(int64_t id, const std::vector<std::string>& names) {
  std::vector<std::string> cmd{"HMGET", keys::Article(id)};
  cmd.insert(cmd.end(), names.begin(), names.end());
  return cmd;
}

std::vector<std::string> AccessCommand(int64_t id) { return HmgetOf(id, AccessFields()); }

// An HMGET reply of `names`; empty when the article is not cached.
ArticleFields FieldsOf(const Reply& r, const std::vector<std::string>& names) {
  ArticleFields f;
  for (size_t i = 0; i < r.elements.size() && i < names.size(); ++i) {
    if (!r.elements[i].is_nil()) {
      f[names[i]] = r.elements[i].str;
    }
  }
  if (!f.count("id") || !f.count("status")) {
    f.clear();
  }
  return f;
}

ArticleFields AccessOf(const Reply& r) { return FieldsOf(r, AccessFields()); }

}  // namespace

Awaitable<Result<std::optional<model::Article>>> ArticleCache::GetAccess(int64_t id) {
  auto r = co_await client_.Command(AccessCommand(id));
  PL_CO_CHECK(ReplyOk(r));
  const ArticleFields fields = AccessOf(*r);
  if (fields.empty()) {
    co_return std::optional<model::Article>{};
  }
  std::optional<model::Article> a = DecodeAccess(fields);
  if (!a) {
    co_return Fail(ErrorCode::kInternal, "corrupt cached article");
  }
  co_return a;
}

Awaitable<Result<std::vector<std::optional<model::Article>>>> ArticleCache::GetAccessMany(
    const std::vector<int64_t>& ids) {
  co_return co_await PerId<std::optional<model::Article>>(
      client_, ids, AccessCommand,
      [](const Reply& reply) { return DecodeAccess(AccessOf(reply)); });
}

Awaitable<Result<std::vector<std::optional<model::Article>>>> ArticleCache::GetCountsMany(
    const std::vector<int64_t>& ids) {
  const auto command_of = [](int64_t id) { return HmgetOf(id, CountFields()); };
  co_return co_await PerId<std::optional<model::Article>>(
      client_, ids, command_of,
      [](const Reply& reply) { return DecodeAccess(FieldsOf(reply, CountFields())); });
}

Awaitable<Result<std::vector<std::optional<model::Article>>>> ArticleCache::GetMany(
    const std::vector<int64_t>& ids) {
  // HGETALL, not HMGET of the 17 names: Redis walks the small hash once instead of searching
  // it per name, and plauditd formats 2 arguments instead of 19 per article (an article list
  // page is 20 of these; both costs showed in its profile).
  const auto command_of = [](int64_t id) -> std::vector<std::string> {
    return {"HGETALL", keys::Article(id)};
  };
  co_return co_await PerId<std::optional<model::Article>>(client_, ids, command_of, HashArticle);
}

namespace {

// article_put.lua's arguments after the mode: the version, the birth mark's value, the body
// flag (and body), then the fields with 'status' first: like_set.lua reads it on every article
// like, and HGET scans a small (listpack) hash from the front; in name order it was the 13th
// field of 17 (~1,900 more Redis instructions a like, callgrind).
std::vector<std::string> PutArgs(std::string_view mode, const model::Article& a,
                                 std::string_view token, const std::string* body) {
  const ArticleFields fields = EncodeArticle(a);
  const int64_t ver = a.ver;
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
    if (k == "status" || k == "ver" || k == "body_ver") {
      continue;
    }
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

Awaitable<Result<ArticleCache::Filled>> ArticleCache::Put(std::string_view mode,
                                                          const model::Article& a,
                                                          std::string_view token,
                                                          const std::string* body) {
  auto r = co_await client_.Eval(GetScript("article_put.lua"), PutKeys(a.id),
                                 PutArgs(mode, a, token, body));
  PL_CO_CHECK(ReplyOk(r));
  Filled out;
  if (r->type == Reply::Type::kArray) {
    auto& kv = r->elements;
    ArticleFieldList fields;
    fields.reserve(kv.size() / 2);
    for (size_t i = 0; i + 1 < kv.size(); i += 2) {
      fields.emplace_back(std::move(kv[i].str), std::move(kv[i + 1].str));
    }
    out.live = DecodeArticle(fields);
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

Awaitable<Status> ArticleCache::Create(const model::Article& a, const std::string* body) {
  PL_CO_CHECK(co_await Put("create", a, "", body));
  co_return Status{};
}

namespace {

std::vector<std::string> FillTokenCommand(int64_t id) {
  return {"GET", keys::LikeBirthMark(keys::LikeShard(id))};
}

}  // namespace

Awaitable<Result<std::optional<std::string>>> ArticleCache::FillToken(int64_t id) {
  auto r = co_await client_.Command(FillTokenCommand(id));
  PL_CO_CHECK(ReplyOk(r));
  if (r->is_nil()) {
    co_return std::optional<std::string>{};
  }
  co_return std::optional<std::string>(std::move(r->str));
}

Awaitable<Result<std::vector<std::optional<std::string>>>> ArticleCache::FillTokens(
    const std::vector<int64_t>& ids) {
  const auto token_of = [](Reply& reply) -> std::optional<std::string> {
    if (reply.is_nil()) {
      return std::nullopt;
    }
    return std::move(reply.str);
  };
  co_return co_await PerId<std::optional<std::string>>(client_, ids, FillTokenCommand, token_of);
}

Awaitable<Result<ArticleCache::Filled>> ArticleCache::Fill(const model::Article& a,
                                                           const std::string& token,
                                                           const std::string* body) {
  co_return co_await Put("fill", a, token, body);
}

Awaitable<Status> ArticleCache::Write(const model::Article& a, const std::string* body) {
  PL_CO_CHECK(co_await Put("write", a, "", body));
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
      {"UNLINK", keys::CommentMeta(id), keys::CommentsByTime(id), keys::CommentsByLikes(id)},
      // List pages that showed it are not served again (its index entry goes next, and that
      // moves the lists' version too, but a page may hold it until then).
      {"INCR", keys::ListVersion(keys::LikeShard(id))}};
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

}  // namespace plaudit::redis
