#include "redis/comment_cache.hpp"

#include <algorithm>
#include <array>

#include "redis/client/resp.hpp"
#include "redis/client/scan.hpp"
#include "redis/comment_codec.hpp"
#include "redis/keys.hpp"
#include "redis/script.hpp"

namespace plaudit::redis {
namespace {

// Moves the strings out of an HMGET reply (no copies) and decodes them.
CachedComment ToComment(Reply&& arr) {
  // Not cached: no id or no version, or written by a release from before "html"
  // (comment_codec.hpp).
  if (arr.elements.size() != kCmFieldCount || arr.elements[kCmId].is_nil() ||
      arr.elements[kCmVer].is_nil() || arr.elements[kCmHtml].is_nil()) {
    return std::nullopt;
  }
  return DecodeComment(std::span<Reply, kCmFieldCount>(arr.elements.data(), kCmFieldCount));
}

std::string IndexKey(int64_t article_id, std::optional<int64_t> parent, CommentIndex index) {
  if (parent) {
    return index == CommentIndex::kByTime ? keys::RepliesByTime(*parent)
                                          : keys::RepliesByLikes(*parent);
  }
  return index == CommentIndex::kByTime ? keys::CommentsByTime(article_id)
                                        : keys::CommentsByLikes(article_id);
}

std::string_view LeaseOpName(LeaseOp op) {
  // In LeaseOp's order; comment_meta.lua's op names.
  constexpr std::array<std::string_view, 3> kNames{"begin", "renew", "finish"};
  return kNames.at(static_cast<size_t>(op));
}

// What comment_meta.lua answers to `op`: a begin that is neither ready nor busy is the
// caller's ('go'); a renew or finish that is not 'ok' is lost.
LeaseState ParseLeaseState(LeaseOp op, std::string_view reply) {
  if (op == LeaseOp::kBegin) {
    if (reply == "ready") {
      return LeaseState::kReady;
    }
    if (reply == "busy") {
      return LeaseState::kBusy;
    }
    return LeaseState::kOurs;
  }
  return reply == "ok" ? LeaseState::kOurs : LeaseState::kLost;
}

}  // namespace

Awaitable<Result<std::optional<int64_t>>> CommentCache::NextCommentId(
    int64_t article_id, std::optional<int64_t> sql_max_id) {
  PL_CO_TRY(auto ids, co_await NextCommentIds(article_id, sql_max_id, 1));
  if (!ids) {
    co_return std::optional<int64_t>{};
  }
  co_return std::optional<int64_t>(ids->front());
}

Awaitable<Result<std::optional<std::vector<int64_t>>>> CommentCache::NextCommentIds(
    int64_t article_id, std::optional<int64_t> sql_max_id, int64_t count) {
  if (count < 1) {
    co_return Fail(ErrorCode::kInvalidArgument, "no ids asked for");
  }
  // The sequence counts per shard: id = seq·256 + the article's shard (keys::CommentIdFor),
  // so the floor of a sequence above SQL's highest id is that id's seq.
  const int64_t floor = sql_max_id ? *sql_max_id / keys::kLikeShards : -1;
  std::vector<std::string> keys{std::string(keys::kCommentSeq)};
  std::vector<std::string> args{std::to_string(floor), std::to_string(count)};
  auto r = co_await client_.Eval(GetScript("next_id.lua"), std::move(keys), std::move(args));
  PL_CO_CHECK(ReplyOk(r));
  if (r->is_nil()) {
    co_return std::optional<std::vector<int64_t>>{};
  }
  std::vector<int64_t> ids;
  ids.reserve(static_cast<size_t>(count));
  for (int64_t seq = r->integer - count + 1; seq <= r->integer; ++seq) {
    ids.push_back(keys::CommentIdFor(seq, article_id));
  }
  co_return std::optional<std::vector<int64_t>>(std::move(ids));
}

Awaitable<Status> CommentCache::Put(int64_t article_id, std::span<const model::Comment> comments,
                                    NewHashes hashes) {
  if (comments.empty()) {
    co_return Status{};
  }
  std::vector<std::string> keys{keys::CommentMeta(article_id)};
  std::vector<std::string> args{hashes == NewHashes::kCreate ? "1" : "0"};
  for (const auto& c : comments) {
    const CommentFields fields = EncodeComment(c);
    keys.push_back(keys::Comment(c.id));
    keys.push_back(IndexKey(article_id, c.parent_id, CommentIndex::kByTime));
    keys.push_back(IndexKey(article_id, c.parent_id, CommentIndex::kByLikes));
    keys.push_back(keys::LikeCount(keys::LikeShard(c.id), "c" + std::to_string(c.id)));
    args.push_back(ListMember(c.id));
    args.push_back(std::to_string(c.id));
    args.push_back(std::to_string(fields.size()));
    for (const auto& [k, v] : fields) {
      args.push_back(k);
      args.push_back(v);
    }
  }
  co_return ReplyOk(
      co_await client_.Eval(GetScript("comment_put.lua"), std::move(keys), std::move(args)));
}

Awaitable<Result<std::vector<CachedComment>>> CommentCache::GetMany(
    const std::vector<int64_t>& ids) {
  PL_CO_TRY(auto r, co_await GetWithReplies(ids, 0));
  co_return std::move(r.first);
}

Awaitable<Result<std::vector<CachedComment>>> CommentCache::GetPlacements(
    const std::vector<int64_t>& ids) {
  // Ver last: its absence means "not cached" (below).
  static const std::array<size_t, 7> kPlacement = {kCmId,      kCmArticle, kCmParent, kCmDeleted,
                                                   kCmReplies, kCmStatus,  kCmVer};
  std::vector<CachedComment> out;
  if (ids.empty()) {
    co_return out;
  }
  std::vector<std::vector<std::string>> cmds;
  cmds.reserve(ids.size());
  for (int64_t id : ids) {
    std::vector<std::string> hmget{"HMGET", keys::Comment(id)};
    for (size_t f : kPlacement) {
      hmget.push_back(CommentFieldNames()[f]);
    }
    cmds.push_back(std::move(hmget));
  }
  auto r = co_await client_.Pipeline(std::move(cmds));
  PL_CO_CHECK(AllOk(r));
  out.reserve(ids.size());
  for (auto& reply : *r) {
    // Not cached as ToComment decides it: no id or no version.
    if (reply.elements.size() != kPlacement.size() || reply.elements[0].is_nil() ||
        reply.elements[kPlacement.size() - 1].is_nil()) {
      out.emplace_back();
      continue;
    }
    CommentRecord rec;
    for (size_t i = 0; i < kPlacement.size(); ++i) {
      rec[kPlacement[i]] = std::move(reply.elements[i].str);
    }
    out.push_back(DecodeComment(std::move(rec)));
  }
  co_return out;
}

Awaitable<Result<std::pair<std::vector<CachedComment>, std::vector<std::vector<int64_t>>>>>
CommentCache::GetWithReplies(const std::vector<int64_t>& ids, int64_t replies) {
  using Out = std::pair<std::vector<CachedComment>, std::vector<std::vector<int64_t>>>;
  Out out;
  if (ids.empty()) {
    co_return out;
  }
  // Plain commands in one pipeline (one round trip), not a script: inside Lua each HMGET's
  // arguments and reply are converted twice, and a 20 × 3 page cost Redis ~900 µs in 2
  // script calls against ~250 µs as 80 HMGETs and 20 ZRANGEs (INFO commandstats). Each
  // comment is still read atomically; the page was never one snapshot of all of them.
  // The field names are framed once for all of them (FramedCommands).
  static const std::string kFramedFields = FrameArgs(CommentFieldNames());
  const size_t step = replies > 0 ? 2 : 1;
  FramedCommands cmds;
  cmds.Reserve(ids.size() * (kFramedFields.size() + 128), ids.size() * step);
  const std::string last_reply = std::to_string(std::max<int64_t>(replies, 1) - 1);
  for (int64_t id : ids) {
    cmds.Begin("HMGET", 2 + CommentFieldNames().size());
    cmds.Arg(keys::Comment(id));
    cmds.Framed(kFramedFields);
    cmds.End();
    if (replies > 0) {
      cmds.Begin("ZRANGE", 4);
      cmds.Arg(keys::RepliesByTime(id));
      cmds.Arg("0");
      cmds.Arg(last_reply);
      cmds.End();
    }
  }
  auto r = co_await client_.PipelineFramed(std::move(cmds));
  PL_CO_CHECK(AllOk(r));
  if (r->size() != ids.size() * step) {
    co_return Fail(ErrorCode::kInternal, "unexpected comment reply count");
  }
  out.first.reserve(ids.size());
  out.second.reserve(ids.size());
  for (size_t i = 0; i < ids.size(); ++i) {
    out.first.push_back(ToComment(std::move((*r)[i * step])));
    std::vector<int64_t> reply_ids;
    if (replies > 0) {
      const auto& members = (*r)[i * step + 1].elements;
      reply_ids.reserve(members.size());
      for (const auto& m : members) {
        const std::optional<int64_t> id = m.AsInt();
        if (!id) {
          co_return Fail(ErrorCode::kInternal, "corrupt reply index member");
        }
        reply_ids.push_back(*id);
      }
    }
    out.second.push_back(std::move(reply_ids));
  }
  co_return out;
}

Awaitable<Result<std::optional<ListPage>>> CommentCache::RunPage(int64_t article_id,
                                                                 std::optional<int64_t> parent,
                                                                 CommentIndex index,
                                                                 std::vector<std::string> args) {
  std::vector<std::string> keys{keys::CommentMeta(article_id), IndexKey(article_id, parent, index)};
  auto r = co_await client_.Eval(GetScript("comment_page.lua"), std::move(keys), std::move(args));
  PL_CO_CHECK(ReplyOk(r));
  if (r->is_nil() || r->elements.size() != 2) {
    co_return std::optional<ListPage>{};
  }
  ListPage page;
  page.total = r->elements[0].integer;
  const auto& items = r->elements[1].elements;
  page.entries.reserve(items.size() / 2);
  for (size_t i = 0; i + 1 < items.size(); i += 2) {
    const std::optional<int64_t> id = items[i].AsInt();
    if (!id) {
      co_return Fail(ErrorCode::kInternal, "corrupt comment index member");
    }
    page.entries.push_back({*id, static_cast<int64_t>(std::stod(items[i + 1].str))});
  }
  co_return std::optional<ListPage>(std::move(page));
}

Awaitable<Result<std::optional<ListPage>>> CommentCache::Page(int64_t article_id,
                                                              std::optional<int64_t> parent,
                                                              CommentIndex index, bool descending,
                                                              int64_t start, int64_t count) {
  std::vector<std::string> args{descending ? "desc" : "asc", "rank", std::to_string(start),
                                std::to_string(count)};
  co_return co_await RunPage(article_id, parent, index, std::move(args));
}

Awaitable<Result<std::optional<ListPage>>> CommentCache::PageAfter(int64_t article_id,
                                                                   std::optional<int64_t> parent,
                                                                   CommentIndex index,
                                                                   bool descending, int64_t score,
                                                                   int64_t id, int64_t count) {
  std::vector<std::string> args{descending ? "desc" : "asc", "after", std::to_string(score),
                                ListMember(id), std::to_string(count)};
  co_return co_await RunPage(article_id, parent, index, std::move(args));
}

Awaitable<Result<LeaseState>> CommentCache::Lease(int64_t article_id, LeaseOp op,
                                                  const std::string& owner, int64_t lease_ms,
                                                  const std::string& birth) {
  std::vector<std::string> keys{keys::CommentMeta(article_id)};
  std::vector<std::string> args{std::string(LeaseOpName(op)), owner, std::to_string(lease_ms),
                                birth};
  auto r = co_await client_.Eval(GetScript("comment_meta.lua"), std::move(keys), std::move(args));
  PL_CO_CHECK(ReplyOk(r));
  co_return ParseLeaseState(op, r->str);
}

Awaitable<Result<CommentCache::VersionRead>> CommentCache::ThreadVersion(int64_t article_id) {
  std::vector<std::string> cmd{"HMGET", keys::CommentMeta(article_id), "state", "b", "v"};
  auto r = co_await client_.Command(std::move(cmd));
  PL_CO_CHECK(ReplyOk(r));
  const auto& f = r->elements;
  VersionRead read;
  if (f.size() != 3 || f[0].is_nil() || f[0].str != "ready") {
    co_return read;
  }
  if (f[1].is_nil() || f[2].is_nil()) {
    read.unborn = true;
    co_return read;
  }
  read.version = f[1].str + "." + f[2].str;
  co_return read;
}

Awaitable<Status> CommentCache::BearVersion(int64_t article_id, const std::string& birth) {
  // HSETNX each: a racing rebuild's finish (or another reader) may have set them first.
  std::vector<std::vector<std::string>> cmds{{"HSETNX", keys::CommentMeta(article_id), "b", birth},
                                             {"HSETNX", keys::CommentMeta(article_id), "v", "0"}};
  co_return AllOk(co_await client_.Pipeline(std::move(cmds)));
}

Awaitable<Status> CommentCache::Invalidate(int64_t article_id) {
  std::vector<std::string> cmd{"DEL", keys::CommentMeta(article_id)};
  co_return ReplyOk(co_await client_.Command(std::move(cmd)));
}

Awaitable<Status> CommentCache::Forget(const std::vector<int64_t>& comment_ids) {
  if (comment_ids.empty()) {
    co_return Status{};
  }
  // One UNLINK a key, pipelined: a multi-key command fails on Redis Cluster across slots.
  std::vector<std::vector<std::string>> cmds;
  cmds.reserve(comment_ids.size());
  for (int64_t id : comment_ids) {
    cmds.push_back({"UNLINK", keys::Comment(id)});
  }
  PL_CO_TRY(auto r, co_await client_.Pipeline(std::move(cmds)));
  for (const Reply& one : r) {
    if (one.is_error()) {
      co_return Fail(ErrorCode::kUnavailable, "UNLINK: " + one.str);
    }
  }
  co_return Status{};
}

Awaitable<Result<int64_t>> CommentCache::InvalidateAll() {
  // SCAN in bounded steps, never KEYS; one UNLINK per key, pipelined: a multi-key DEL of
  // keys in different hash slots fails on Redis Cluster (issue 25, item 6).
  int64_t dropped = 0;
  std::function<bool(std::string_view)> count = [&dropped](std::string_view) {
    ++dropped;
    return true;
  };
  PL_CO_CHECK(co_await UnlinkMatching(client_, "pl:cmeta:*", std::move(count)));
  co_return dropped;
}

}  // namespace plaudit::redis
