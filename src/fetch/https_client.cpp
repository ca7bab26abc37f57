#include "fetch/https_client.hpp"

#include <curl/curl.h>

#include <boost/url.hpp>
#include <functional>
#include <mutex>

#include "common/pool_call.hpp"

namespace plaudit::fetch {
namespace {

std::once_flag curl_once;

struct Sink {
  std::string* body = nullptr;
  size_t max = 0;
  bool overflow = false;
};

size_t Write(char* data, size_t size, size_t n, void* user) {
  auto* sink = static_cast<Sink*>(user);
  const size_t bytes = size * n;
  if (sink->body->size() + bytes > sink->max) {
    sink->overflow = true;
    return 0;  // makes libcurl stop with CURLE_WRITE_ERROR
  }
  sink->body->append(data, bytes);
  return bytes;
}

Result<Response> Perform(const Request& req, const Options& o) {
  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), curl_easy_cleanup);
  if (!curl) {
    return Fail(ErrorCode::kInternal, "curl_easy_init failed");
  }
  CURL* c = curl.get();
  Response out;
  Sink sink{&out.body, o.max_body};
  curl_slist* headers = nullptr;
  for (const auto& [name, value] : req.headers) {
    std::string line = name + ": ";
    line += value;
    headers = curl_slist_append(headers, line.c_str());
  }
  std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> header_list(headers,
                                                                          curl_slist_free_all);
  curl_easy_setopt(c, CURLOPT_URL, req.url.c_str());
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(o.connect_timeout.count()));
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(o.timeout.count()));
  curl_easy_setopt(c, CURLOPT_USERAGENT, "plauditd");
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, Write);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &sink);
  if (req.method == "POST") {
    curl_easy_setopt(c, CURLOPT_POST, 1L);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, req.body.c_str());
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, static_cast<long>(req.body.size()));
  }
  const CURLcode rc = curl_easy_perform(c);
  if (sink.overflow) {
    return Fail(ErrorCode::kUnavailable, "answer too large: " + req.url);
  }
  if (rc != CURLE_OK) {
    return Fail(ErrorCode::kUnavailable,
                std::string("fetch ") + req.url + ": " + curl_easy_strerror(rc));
  }
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &out.status);
  char* type = nullptr;
  if (curl_easy_getinfo(c, CURLINFO_CONTENT_TYPE, &type) == CURLE_OK && type != nullptr) {
    out.content_type = type;
  }
  return out;
}

}  // namespace

bool FetchableUrl(std::string_view url) {
  auto u = boost::urls::parse_absolute_uri(url);
  if (!u) {
    return false;
  }
  const std::string scheme = u->scheme();
  if (scheme == "https") {
    return u->has_authority() && !u->host().empty();
  }
  if (scheme != "http") {
    return false;
  }
  const std::string host = u->host();
  if (host == "localhost" || host == "[::1]" || host == "::1") {
    return true;
  }
  if (u->host_type() == boost::urls::host_type::ipv4) {
    return host.rfind("127.", 0) == 0;
  }
  return false;
}

HttpsClient::HttpsClient(Options options)
    : options_(options), pool_(static_cast<size_t>(std::max(1, options.threads))) {
  std::call_once(curl_once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

HttpsClient::~HttpsClient() { pool_.join(); }

Awaitable<Result<Response>> HttpsClient::Fetch(Request request) {
  if (!request.configured && !FetchableUrl(request.url)) {
    co_return Fail(ErrorCode::kInvalidArgument, "not an https URL: " + request.url);
  }
  std::function<Result<Response>()> call = [req = std::move(request), options = options_] {
    return Perform(req, options);
  };
  co_return co_await CallOnPool<Result<Response>>(pool_, std::move(call));
}

std::string FormEncode(std::string_view value) {
  char* escaped = curl_easy_escape(nullptr, value.data(), static_cast<int>(value.size()));
  std::string out = escaped != nullptr ? escaped : "";
  curl_free(escaped);
  return out;
}

std::string FormBody(const std::vector<std::pair<std::string, std::string>>& fields) {
  std::string out;
  for (const auto& [name, value] : fields) {
    if (!out.empty()) {
      out += '&';
    }
    out += FormEncode(name);
    out += '=';
    out += FormEncode(value);
  }
  return out;
}

}  // namespace plaudit::fetch
