#include "redis/live_channel.hpp"

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

Awaitable<Result<uint64_t>> LiveChannel::Publish(int64_t article_id, std::string_view kind,
                                                 int64_t comment_id) {
  std::vector<std::string> keys{keys::LiveSeq(article_id)};
  std::vector<std::string> args{Channel(), std::to_string(article_id),
                                std::string(kind) + " " + std::to_string(comment_id)};
  PL_CO_TRY(const Reply r,
            co_await client_.Eval(GetScript("live_publish.lua"), std::move(keys), std::move(args)));
  const std::optional<int64_t> seq = r.AsInt();
  if (!seq || *seq <= 0) {
    co_return Fail(ErrorCode::kInternal, "live_publish.lua: unexpected reply");
  }
  co_return static_cast<uint64_t>(*seq);
}

std::optional<LiveMessage> LiveChannel::Decode(std::string_view payload) {
  LiveMessage m;
  const auto article = Number<int64_t>(Word(payload));
  const auto seq = Number<uint64_t>(Word(payload));
  const std::string_view kind = Word(payload);
  const auto comment = Number<int64_t>(Word(payload));
  if (!article || *article <= 0 || !seq || *seq == 0 || kind.empty() || kind.size() > 16 ||
      !comment || *comment <= 0 || !payload.empty()) {
    return std::nullopt;
  }
  for (char c : kind) {
    if (c < 'a' || c > 'z') {
      return std::nullopt;
    }
  }
  m.article_id = *article;
  m.seq = *seq;
  m.kind = std::string(kind);
  m.comment_id = *comment;
  return m;
}

}  // namespace plaudit::redis
