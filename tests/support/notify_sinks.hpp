#pragma once
// The notification tests' receivers (tests/notify): a real SMTP server (Debian's aiosmtpd) and
// a webhook receiver, each writing what it got to a directory, and readers of those files: a
// mail's headers and its decoded text and HTML parts, a webhook's headers and exact body.
#include <sodium.h>

#include <algorithm>
#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "support/node_server.hpp"
#include "support/temp_dir.hpp"

namespace plaudit::testing {

inline std::string Slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline std::string FromBase64(std::string_view b64) {
  std::string out(b64.size(), '\0');
  size_t len = 0;
  if (sodium_base642bin(reinterpret_cast<unsigned char*>(out.data()), out.size(), b64.data(),
                        b64.size(), " \r\n\t", &len, nullptr,
                        sodium_base64_VARIANT_ORIGINAL) != 0) {
    return "<bad base64>";
  }
  out.resize(len);
  return out;
}

struct SentMail {
  std::map<std::string, std::string> headers;  // lower-case names, unfolded values
  std::string text;                            // the text/plain part, decoded
  std::string html;                            // the text/html part, decoded
  std::string Header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? "" : it->second;
  }
  // The Subject with its RFC 2047 words decoded.
  std::string Subject() const {
    std::string s = Header("subject"), out;
    size_t at = 0;
    while (at < s.size()) {
      const size_t w = s.find("=?UTF-8?B?", at);
      if (w == std::string::npos) {
        out += s.substr(at);
        break;
      }
      out += s.substr(at, w - at);
      const size_t end = s.find("?=", w + 10);
      out += FromBase64(s.substr(w + 10, end - w - 10));
      at = end + 2;
      while (at < s.size() && s[at] == ' ') {
        ++at;  // folding between encoded words
      }
    }
    return out;
  }
};

inline SentMail ParseMail(const std::string& raw) {
  SentMail m;
  const size_t head_end = raw.find("\r\n\r\n");
  std::string last;
  std::istringstream head(raw.substr(0, head_end));
  for (std::string line; std::getline(head, line);) {
    if (!line.empty() && line.back() == '\r') {
      line.pop_back();
    }
    if (!line.empty() && (line[0] == ' ' || line[0] == '\t')) {
      m.headers[last] += line;
      continue;
    }
    const size_t colon = line.find(':');
    if (colon == std::string::npos) {
      continue;
    }
    last = line.substr(0, colon);
    std::transform(last.begin(), last.end(), last.begin(), ::tolower);
    m.headers[last] = line.substr(colon + 2);
  }
  auto part = [&](const std::string& type) {
    const size_t at = raw.find("Content-Type: " + type);
    if (at == std::string::npos) {
      return std::string();
    }
    const size_t body = raw.find("\r\n\r\n", at) + 4;
    const size_t end = raw.find("--", body);
    return FromBase64(raw.substr(body, end - body));
  };
  m.text = part("text/plain");
  m.html = part("text/html");
  return m;
}

// Files of `dir` with `ext`, in name order (the sinks number them as they arrive).
inline std::vector<std::string> Files(const std::filesystem::path& dir, const std::string& ext) {
  std::vector<std::filesystem::path> paths;
  if (std::filesystem::exists(dir)) {
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
      if (e.path().extension() == ext) {
        paths.push_back(e.path());
      }
    }
  }
  std::sort(paths.begin(), paths.end());
  std::vector<std::string> out;
  for (const auto& p : paths) {
    out.push_back(Slurp(p));
  }
  return out;
}

class SmtpSink {
 public:
  // On `port` (0: a free one); `hang`: accepts and never answers.
  explicit SmtpSink(int port = 0, bool hang = false) { Start(port, hang); }
  void Start(int port, bool hang = false) {
    std::vector<std::string> args{"--dir", dir_.path().string()};
    if (hang) {
      args.emplace_back("--hang");
    }
    server_ =
        std::make_unique<ScriptServer>("/usr/bin/python3", "tests/notify/smtp_sink.py", args, port);
    port_ = server_->port();
  }
  void Stop() { server_.reset(); }
  int port() const { return port_; }  // kept across Stop(), for Start(port()) again
  std::string url() const { return "smtp://127.0.0.1:" + std::to_string(port()); }
  std::vector<SentMail> Mails() const {
    std::vector<SentMail> out;
    for (const auto& raw : Files(dir_.path(), ".eml")) {
      out.push_back(ParseMail(raw));
    }
    return out;
  }
  // The mails to `address`.
  std::vector<SentMail> To(const std::string& address) const {
    std::vector<SentMail> out;
    for (auto& m : Mails()) {
      if (m.Header("x-envelope-to") == address) {
        out.push_back(m);
      }
    }
    return out;
  }

 private:
  TempDir dir_{"plaudit-smtp"};
  std::unique_ptr<ScriptServer> server_;
  int port_ = 0;
};

struct Hook {
  std::string path;
  int status = 0;
  std::map<std::string, std::string> headers;
  std::string body;
};

class WebhookSink {
 public:
  explicit WebhookSink(int fail_first = 0)
      : server_("/usr/bin/python3", "tests/notify/webhook_sink.py",
                {"--dir", dir_.path().string(), "--fail", std::to_string(fail_first)}) {}
  std::string url() const { return server_.url() + "/hook"; }
  std::vector<Hook> Received() const {
    std::vector<Hook> out;
    for (const auto& raw : Files(dir_.path(), ".json")) {
      const auto o = boost::json::parse(raw).as_object();
      Hook h;
      h.path = std::string(o.at("path").as_string());
      h.status = static_cast<int>(o.at("status").as_int64());
      for (const auto& [k, v] : o.at("headers").as_object()) {
        h.headers[std::string(k)] = std::string(v.as_string());
      }
      h.body = std::string(o.at("body").as_string());
      out.push_back(std::move(h));
    }
    return out;
  }

 private:
  TempDir dir_{"plaudit-hooks"};
  ScriptServer server_;
};

}  // namespace plaudit::testing
