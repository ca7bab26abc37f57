#include "domain/notice_settings.hpp"

#include "common/time.hpp"
#include "domain/guest_author.hpp"
#include "domain/guest_token.hpp"
#include "text/utf8.hpp"

namespace plaudit::domain {
namespace {

// One verification mail per user per ten minutes: an address field is not a way to mail
// strangers.
constexpr int64_t kVerifyGapMs = int64_t{10} * 60 * 1000;

NoticeSettingsView View(const sql::NotifySettings& s) {
  return {s.email, s.verified, s.replies, s.article_comments, s.moderation, s.language};
}

}  // namespace

Awaitable<Result<NoticeSettingsView>> NoticeSettings::Get(const Principal& who) {
  PL_CO_TRY(auto s, co_await book_.Settings(who.id));
  if (!s) {
    co_return Fail(ErrorCode::kUnauthenticated, "no such user");
  }
  co_return View(*s);
}

Awaitable<Result<NoticeSettingsView>> NoticeSettings::SetEmail(const Principal& who,
                                                               std::string email) {
  const std::string trimmed(text::Trim(email));
  if (!trimmed.empty()) {
    if (!mail_) {
      co_return Fail(ErrorCode::kInvalidArgument,
                     "email: this server sends no mail (it has no --smtp), so none is kept");
    }
    PL_CO_CHECK(CheckEmail(trimmed, "email"));
  }
  const GuestToken link = NewGuestToken();
  sql::NewAddress a{trimmed, link.token, link.hash, NewGuestToken().token};
  PL_CO_TRY(bool found, co_await book_.SetEmail(who.id, std::move(a), NowMs(), kVerifyGapMs));
  if (!found) {
    co_return Fail(ErrorCode::kUnauthenticated, "no such user");
  }
  co_return co_await Get(who);
}

Awaitable<Result<NoticeSettingsView>> NoticeSettings::Change(const Principal& who,
                                                             sql::SettingsChange c) {
  PL_CO_TRY(bool found, co_await book_.ChangeSettings(who.id, std::move(c)));
  if (!found) {
    co_return Fail(ErrorCode::kUnauthenticated, "no such user");
  }
  co_return co_await Get(who);
}

Awaitable<Status> NoticeSettings::Verify(const Principal& who, std::string token) {
  PL_CO_TRY(bool ok, co_await book_.Confirm(HashGuestToken(token), who.id, NowMs()));
  if (!ok) {
    co_return Fail(ErrorCode::kNotFound, "token: no address of yours waits for it");
  }
  co_return Status{};
}

Awaitable<Status> NoticeSettings::Confirm(std::string token) {
  PL_CO_TRY(bool ok, co_await book_.Confirm(HashGuestToken(token), std::nullopt, NowMs()));
  if (!ok) {
    co_return Fail(ErrorCode::kNotFound, "this link is not (or no longer) valid");
  }
  co_return Status{};
}

Awaitable<Status> NoticeSettings::Unsubscribe(std::string key) {
  // Keys have the tokens' shape: anything else matches nothing, without a query.
  if (HashGuestToken(key).empty()) {
    co_return Fail(ErrorCode::kNotFound, "this link is not (or no longer) valid");
  }
  PL_CO_TRY(bool ok, co_await book_.Unsubscribe(std::move(key), NowMs()));
  if (!ok) {
    co_return Fail(ErrorCode::kNotFound, "this link is not (or no longer) valid");
  }
  co_return Status{};
}

}  // namespace plaudit::domain
