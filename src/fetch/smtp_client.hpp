#pragma once
// Outgoing mail (API.md "Notifications"): libcurl's SMTP on a small pool of its own threads,
// so a slow or hanging mail server never blocks the I/O thread and never holds up a request
// (the delivery worker awaits it; no handler does). STARTTLS is used when the server offers it
// (smtp://) and required unless the server is on loopback without a password (NeedsTls),
// implicit TLS with smtps://; certificates are verified by libcurl's defaults.
// Each send is bounded by the connect and total timeouts.
#include <chrono>
#include <string>

#include "common/net.hpp"
#include "common/result.hpp"

namespace plaudit::fetch {

struct SmtpOptions {
  std::string url;  // smtp[s]://user:pass@host:port (user and password optional)
  int threads = 1;
  std::chrono::milliseconds connect_timeout{5000};
  std::chrono::milliseconds timeout{30000};
  bool require_tls = false;  // set by SmtpClient: a password, or a host not on loopback
};

// Whether mail to `url` must go over TLS (STARTTLS or smtps): it carries a password, or the
// server is not on loopback.
bool NeedsTls(const std::string& url);

struct Mail {
  std::string from;     // the envelope sender: a bare address
  std::string to;       // one bare address
  std::string message;  // the whole RFC 5322 message, CRLF line ends
};

class SmtpClient {
 public:
  explicit SmtpClient(SmtpOptions options);
  ~SmtpClient();
  SmtpClient(const SmtpClient&) = delete;
  SmtpClient& operator=(const SmtpClient&) = delete;

  // kUnavailable when the server could not be reached or did not accept the mail (try again
  // later); the message names libcurl's reason, never the password.
  Awaitable<Status> Send(Mail mail);

 private:
  SmtpOptions options_;
  net::thread_pool pool_;
};

}  // namespace plaudit::fetch
