#pragma once
// A test server written for Node (tests/oidc: the OpenID provider, the GitHub stand-in), run on
// a free loopback port: `node <script> --port P <args>`, ready once it prints
// "listening <url>". Stopped (SIGTERM) with the object.
#include <memory>
#include <string>
#include <vector>

#include "process.hpp"
#include "temp_dir.hpp"

namespace plaudit::testing {

class ScriptServer {
 public:
  // `interpreter` an executable's name (found on PATH, or an absolute path), `script`
  // relative to the source tree; `port` 0 for a free one. Throws when it does not come up
  // within 20 s (its log in the message).
  ScriptServer(const std::string& interpreter, const std::string& script,
               std::vector<std::string> args, int port = 0);
  ~ScriptServer();

  const std::string& url() const { return url_; }  // as the script printed it
  int port() const { return port_; }

 private:
  TempDir dir_;
  std::unique_ptr<Process> process_;
  std::string url_;
  int port_ = 0;
};

class NodeServer {
 public:
  // `script` relative to the source tree (e.g. "tests/oidc/provider.mjs"). Throws when it does
  // not come up within 20 s (its log in the message).
  explicit NodeServer(const std::string& script, std::vector<std::string> args = {})
      : server_("node", script, std::move(args)) {}

  const std::string& url() const { return server_.url(); }  // "http://127.0.0.1:P"

 private:
  ScriptServer server_;
};

// The source tree's root (PLAUDIT_SOURCE_DIR when the suite defines it, else the current
// directory's).
std::string SourceDir();

}  // namespace plaudit::testing
