#include "redis/live_channel.hpp"

#include <algorithm>
#include <charconv>
#include <vector>

#include "redis/keys.hpp"
#include "redis/script.hpp"

namespace plaudit::redis {
namespace {

template <class T>
std::optional<T> Number(std::string_view s) {
  T out{};
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  if (ec != std::errc() || ptr != s.data() + s.size() || s.empty()) {
    return std::nullopt;
  }
  return out;
}

// The next space-separated word of `s`, taken off its front.
std::string_view Word(std::string_view& s) {
  const size_t space = s.find(' ');
  std::string_view word = s.substr(0, space);
  s = space == std::string_view::npos ? std::string_view() : s.substr(space + 1);
  return word;
}

}  // namespace

std::string LiveChannel::Channel() { return std::string(keys::kLiveEvents); }

Awaitable<Result<int64_t>> LiveChannel::Run(int64_t article_id, std::string_view kind,
                                            std::span<const int64_t> ids,
                                            std::optional<std::chrono::milliseconds> gap) {
  if (ids.empty() || ids.size() > kMaxIds) {
    co_return Fail(ErrorCode::kInvalidArgument, "a live update names 1 to 64 ids");
  }
  std::string text(kind);
  for (size_t i = 0; i < ids.size(); ++i) {
    text.push_back(i == 0 ? ' ' : ',');
    text += std::to_string(ids[i]);
  }
  std::vector<std::string> keys{keys::LiveSeq(article_id)};
  std::vector<std::string> args{Channel(), std::to_string(article_id), std::move(text)};
  if (gap) {
    keys.push_back(keys::LiveGate(article_id));
    args.push_back(std::to_string(std::max<int64_t>(1, gap->count())));
  }
  PL_CO_TRY(const Reply r,
            co_await client_.Eval(GetScript("live_publish.lua"), std::move(keys), std::move(args)));
  PL_CO_CHECK(ReplyOk(r));
  const std::optional<int64_t> n = r.AsInt();
  if (!n || *n == 0 || (*n < 0 && !gap)) {
    co_return Fail(ErrorCode::kInternal, "live_publish.lua: unexpected reply");
  }
  co_return *n;
}

Awaitable<Result<uint64_t>> LiveChannel::Publish(int64_t article_id, std::string_view kind,
                                                 std::span<const int64_t> ids) {
  PL_CO_TRY(const int64_t seq, co_await Run(article_id, kind, ids, std::nullopt));
  co_return static_cast<uint64_t>(seq);
}

Awaitable<Result<GatedPublish>> LiveChannel::PublishGated(int64_t article_id, std::string_view kind,
                                                          std::span<const int64_t> ids,
                                                          std::chrono::milliseconds gap) {
  PL_CO_TRY(const int64_t n, co_await Run(article_id, kind, ids, gap));
  GatedPublish out;
  if (n > 0) {
    out.seq = static_cast<uint64_t>(n);
  } else {
    out.wait = std::chrono::milliseconds(-n);
  }
  co_return out;
}

std::optional<LiveMessage> LiveChannel::Decode(std::string_view payload) {
  LiveMessage m;
  const auto article = Number<int64_t>(Word(payload));
  const auto seq = Number<uint64_t>(Word(payload));
  const std::string_view kind = Word(payload);
  std::string_view ids = Word(payload);
  if (!article || *article <= 0 || !seq || *seq == 0 || kind.empty() || kind.size() > 16 ||
      ids.empty() || !payload.empty()) {
    return std::nullopt;
  }
  for (char c : kind) {
    if (c < 'a' || c > 'z') {
      return std::nullopt;
    }
  }
  while (true) {
    const size_t comma = ids.find(',');
    const auto id = Number<int64_t>(ids.substr(0, comma));
    if (!id || *id < 0 || m.ids.size() == kMaxIds) {
      return std::nullopt;
    }
    m.ids.push_back(*id);
    if (comma == std::string_view::npos) {
      break;
    }
    ids.remove_prefix(comma + 1);
  }
  m.article_id = *article;
  m.seq = *seq;
  m.kind = std::string(kind);
  return m;
}

}  // namespace plaudit::redis
