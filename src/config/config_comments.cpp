// What a comment must pass: the edit window, moderation and guests, the spam signals and
// reports that hold a comment, duplicates, and the rate limits on writes and sign-ups; and
// what its Markdown may show (images).
#include "config/config_detail.hpp"

namespace plaudit::config::detail {

void AddCommentOptions(CLI::App& app, Config& c) {
  app.add_option("--comment-edit-window-s", c.comment_edit_window_s,
                 "seconds after posting during which an author may edit a comment")
      ->envname("PLAUDIT_COMMENT_EDIT_WINDOW_S")
      ->check(CLI::Range(int64_t{0}, int64_t{366} * 24 * 3600))
      ->capture_default_str();
  AddParsed(
      app, "--moderation", c.moderation,
      [](const std::string& text) -> Result<std::string> {
        if (text == "off" || text == "first" || text == "all") {
          return text;
        }
        return Fail(ErrorCode::kInvalidArgument, "must be off, first or all");
      },
      "when comments wait for a moderator: off (never), first (until one of the writer's was "
      "approved) or all")
      ->envname("PLAUDIT_MODERATION")
      ->default_str(c.moderation);
  AddParsed(
      app, "--guests", c.guests,
      [](const std::string& text) -> Result<std::string> {
        if (text == "off" || text == "moderated" || text == "on") {
          return text;
        }
        return Fail(ErrorCode::kInvalidArgument, "must be off, moderated or on");
      },
      "comments without an account: off, moderated (held for a moderator) or on")
      ->envname("PLAUDIT_GUESTS")
      ->default_str(c.guests);
  AddParsed(app, "--comment-images", c.comment_images, ParseOnOff,
            "on: images in a comment's Markdown are shown; off: their alt text is")
      ->envname("PLAUDIT_COMMENT_IMAGES")
      ->default_str(c.comment_images ? "on" : "off");
  app.add_option("--max-links", c.max_links, "links a comment may carry before it is held")
      ->envname("PLAUDIT_MAX_LINKS")
      ->check(CLI::Range(int64_t{0}, int64_t{1000}))
      ->capture_default_str();
  app.add_option("--spam-words", c.spam_words,
                 "a file of words, one a line, that hold a comment containing one "
                 "(case-insensitive)")
      ->envname("PLAUDIT_SPAM_WORDS");
  app.add_option("--report-threshold", c.report_threshold,
                 "distinct readers' reports that send an approved comment back to pending; 0: "
                 "reports never hold one")
      ->envname("PLAUDIT_REPORT_THRESHOLD")
      ->check(CLI::Range(int64_t{0}, int64_t{1000}))
      ->capture_default_str();
  app.add_option("--duplicate-window-s", c.duplicate_window_s,
                 "seconds within which the same comment body from the same writer is refused "
                 "(409 duplicate); 0: never")
      ->envname("PLAUDIT_DUPLICATE_WINDOW_S")
      ->check(CLI::Range(int64_t{0}, int64_t{7} * 24 * 3600))
      ->capture_default_str();
}

void AddRateLimitOptions(CLI::App& app, Config& c) {
  struct NamedLimit {
    const char* flag;
    const char* env;
    RateLimit& limit;
    const char* help;
  };
  for (const NamedLimit& l :
       {NamedLimit{"--limit-login-user", "PLAUDIT_LIMIT_LOGIN_USER", c.limit_login_user,
                   "failed logins per username"},
        NamedLimit{"--limit-login-address", "PLAUDIT_LIMIT_LOGIN_ADDRESS", c.limit_login_address,
                   "failed logins per client address"},
        NamedLimit{"--limit-signup-address", "PLAUDIT_LIMIT_SIGNUP_ADDRESS", c.limit_signup_address,
                   "accounts created per client address"},
        NamedLimit{"--limit-writes-user", "PLAUDIT_LIMIT_WRITES_USER", c.limit_writes_user,
                   "writes per user"},
        NamedLimit{"--limit-requests-address", "PLAUDIT_LIMIT_REQUESTS_ADDRESS",
                   c.limit_requests_address, "requests per client address"},
        NamedLimit{"--limit-pages-user", "PLAUDIT_LIMIT_PAGES_USER", c.limit_pages_user,
                   "page threads created per user"},
        NamedLimit{"--limit-pages-address", "PLAUDIT_LIMIT_PAGES_ADDRESS", c.limit_pages_address,
                   "page threads created per client address"},
        NamedLimit{"--limit-new-writer", "PLAUDIT_LIMIT_NEW_WRITER", c.limit_new_writer,
                   "comments of an account younger than the period"},
        NamedLimit{"--limit-guest-address", "PLAUDIT_LIMIT_GUEST_ADDRESS", c.limit_guest_address,
                   "guest comments per client address"}}) {
    AddParsed(app, l.flag, l.limit, ParseRateLimit, std::string(l.help) + ": COUNT/PERIOD or off")
        ->envname(l.env)
        ->default_str(FormatRateLimit(l.limit));
  }
}

}  // namespace plaudit::config::detail
