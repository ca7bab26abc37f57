#pragma once
// A reader's side of notifications (API.md "Notifications"): their address and its
// verification, what they want to hear of, and the links in mails (confirm an address,
// unsubscribe in one click). The links' secrets are random tokens (domain/guest_token.hpp);
// only their hashes are kept for confirmation, and an unsubscribe key only unsubscribes.
#include <optional>
#include <string>

#include "common/result.hpp"
#include "domain/user.hpp"
#include "sql/notices.hpp"

namespace plaudit::domain {

// A user's address and settings: what the store keeps is what the API shows.
using NoticeSettingsView = sql::NotifySettings;

class NoticeSettings {
 public:
  // `mail`: --smtp is set (without it no address can be verified, so none is taken).
  NoticeSettings(sql::NoticeBook& book, bool mail) : book_(book), mail_(mail) {}

  Awaitable<Result<NoticeSettingsView>> Get(const Principal& who);
  // A new address (unverified until its link is followed; a verification mail is queued), or
  // "" to remove it. kInvalidArgument for a malformed address or when this server sends no
  // mail; kRateLimited when a verification mail went out less than ten minutes ago.
  Awaitable<Result<NoticeSettingsView>> SetEmail(const Principal& who, std::string email);
  Awaitable<Result<NoticeSettingsView>> Change(const Principal& who, sql::SettingsChange c);
  // The user's own link token (POST /users/me/email/verify): kNotFound for one that is not
  // theirs or not current.
  Awaitable<Status> Verify(const Principal& who, std::string token);
  // A link followed from a mail, with no session: a user's or a guest's address.
  Awaitable<Status> Confirm(std::string token);
  Awaitable<Status> Unsubscribe(std::string key);

  bool mail() const { return mail_; }

 private:
  sql::NoticeBook& book_;
  bool mail_;
};

}  // namespace plaudit::domain
