#include "fetch/smtp_client.hpp"

#include <curl/curl.h>

#include <algorithm>
#include <boost/url.hpp>
#include <cstring>
#include <functional>
#include <memory>

#include "common/pool_call.hpp"

namespace plaudit::fetch {
namespace {

struct Source {
  const std::string* text = nullptr;
  size_t at = 0;
};

size_t Read(char* buffer, size_t size, size_t n, void* user) {
  auto* src = static_cast<Source*>(user);
  const size_t left = src->text->size() - src->at;
  const size_t bytes = std::min(left, size * n);
  std::memcpy(buffer, src->text->data() + src->at, bytes);
  src->at += bytes;
  return bytes;
}

Status Perform(const Mail& mail, const SmtpOptions& o) {
  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), curl_easy_cleanup);
  if (!curl) {
    return Fail(ErrorCode::kInternal, "curl_easy_init failed");
  }
  CURL* c = curl.get();
  std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> rcpt(
      curl_slist_append(nullptr, ("<" + mail.to + ">").c_str()), curl_slist_free_all);
  Source src{&mail.message};
  const std::string from = "<" + mail.from + ">";
  curl_easy_setopt(c, CURLOPT_URL, o.url.c_str());
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "smtp,smtps");
  // STARTTLS when the server offers it, plain otherwise (a relay on the same host) — but with
  // a password, or to another host, TLS is required: a man in the middle who strips STARTTLS
  // would otherwise read the password and the links in the mails.
  curl_easy_setopt(c, CURLOPT_USE_SSL,
                   static_cast<long>(o.require_tls ? CURLUSESSL_ALL : CURLUSESSL_TRY));
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(o.connect_timeout.count()));
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(o.timeout.count()));
  curl_easy_setopt(c, CURLOPT_MAIL_FROM, from.c_str());
  curl_easy_setopt(c, CURLOPT_MAIL_RCPT, rcpt.get());
  curl_easy_setopt(c, CURLOPT_READFUNCTION, Read);
  curl_easy_setopt(c, CURLOPT_READDATA, &src);
  curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
  const CURLcode rc = curl_easy_perform(c);
  if (rc != CURLE_OK) {
    return Fail(ErrorCode::kUnavailable, std::string("smtp: ") + curl_easy_strerror(rc));
  }
  return {};
}

}  // namespace

bool NeedsTls(const std::string& url) {
  auto u = boost::urls::parse_absolute_uri(url);
  if (!u) {
    return true;
  }
  if (u->has_userinfo()) {
    return true;
  }
  const std::string host = u->host();
  return !(host == "localhost" || host == "[::1]" || host == "::1" || host.rfind("127.", 0) == 0);
}

SmtpClient::SmtpClient(SmtpOptions options)
    : options_(std::move(options)), pool_(static_cast<size_t>(std::max(1, options_.threads))) {
  options_.require_tls = NeedsTls(options_.url);
  curl_global_init(CURL_GLOBAL_DEFAULT);  // reference counted by libcurl; thread-safe since 7.84
}

SmtpClient::~SmtpClient() { pool_.join(); }

Awaitable<Status> SmtpClient::Send(Mail mail) {
  std::function<Status()> call = [mail = std::move(mail), options = options_] {
    return Perform(mail, options);
  };
  co_return co_await CallOnPool<Status>(pool_, std::move(call));
}

}  // namespace plaudit::fetch
