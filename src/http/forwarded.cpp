#include "http/forwarded.hpp"

#include <boost/asio/ip/address.hpp>
#include <boost/beast/core/string.hpp>
#include <optional>

namespace plaudit::http {
namespace {

// Splits at `sep` outside quoted strings (a Forwarded value may quote a ',' or ';').
std::vector<std::string_view> SplitOutsideQuotes(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  bool quoted = false;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (quoted && s[i] == '\\') {
      ++i;
    } else if (s[i] == '"') {
      quoted = !quoted;
    } else if (!quoted && s[i] == sep) {
      parts.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  parts.push_back(s.substr(start));
  return parts;
}

std::string Unquote(std::string_view v) {
  v = TrimOws(v);
  if (v.size() < 2 || v.front() != '"' || v.back() != '"') {
    return std::string(v);
  }
  std::string out;
  for (size_t i = 1; i + 1 < v.size(); ++i) {
    if (v[i] == '\\' && i + 2 < v.size()) {
      ++i;
    }
    out.push_back(v[i]);
  }
  return out;
}

// "[2001:db8::1]:4711" → "2001:db8::1"; "192.0.2.1:80" → "192.0.2.1"; a bare IPv6 address
// (several colons, as X-Forwarded-For writes it) stays whole.
std::string NodeAddress(std::string_view node) {
  node = TrimOws(node);
  if (!node.empty() && node.front() == '[') {
    size_t close = node.find(']');
    if (close != std::string_view::npos) {
      return std::string(node.substr(1, close - 1));
    }
  }
  size_t colon = node.find(':');
  if (colon != std::string_view::npos && node.find(':', colon + 1) == std::string_view::npos) {
    node = node.substr(0, colon);
  }
  return std::string(node);
}

// The value of `key` in one Forwarded element ("for=a;proto=https"), unquoted; nullopt if
// the element has none.
std::optional<std::string> ElementValue(std::string_view element, std::string_view key) {
  for (std::string_view pair : SplitOutsideQuotes(element, ';')) {
    pair = TrimOws(pair);
    size_t eq = pair.find('=');
    if (eq == std::string_view::npos) {
      continue;
    }
    std::string_view k = TrimOws(pair.substr(0, eq));
    if (beast::iequals(beast::string_view(k.data(), k.size()),
                       beast::string_view(key.data(), key.size()))) {
      return Unquote(pair.substr(eq + 1));
    }
  }
  return std::nullopt;
}

}  // namespace

std::vector<std::string> ForwardedFor(std::string_view forwarded) {
  std::vector<std::string> nodes;
  for (std::string_view element : SplitOutsideQuotes(forwarded, ',')) {
    if (auto v = ElementValue(element, "for")) {
      nodes.push_back(NodeAddress(*v));
    }
  }
  return nodes;
}

namespace {

// The value of `key` in the rightmost Forwarded element that has one: what the nearest proxy
// saw.
std::string Rightmost(std::string_view forwarded, std::string_view key) {
  std::string value;
  for (std::string_view element : SplitOutsideQuotes(forwarded, ',')) {
    if (auto v = ElementValue(element, key)) {
      value = std::move(*v);
    }
  }
  return value;
}

}  // namespace

std::string ForwardedProto(std::string_view forwarded) { return Rightmost(forwarded, "proto"); }

std::string ForwardedHost(std::string_view forwarded) { return Rightmost(forwarded, "host"); }

std::vector<std::string> XForwardedFor(std::string_view header) {
  std::vector<std::string> nodes;
  for (std::string_view item : SplitOutsideQuotes(header, ',')) {
    if (!TrimOws(item).empty()) {
      nodes.push_back(NodeAddress(item));
    }
  }
  return nodes;
}

std::string_view XForwardedProto(std::string_view header) {
  size_t comma = header.rfind(',');
  return TrimOws(comma == std::string_view::npos ? header : header.substr(comma + 1));
}

ClientEndpoint ClientOf(const RawRequest& req, std::string_view peer, const AddressSet& trusted,
                        ProxyHeader family) {
  ClientEndpoint client;
  client.address = std::string(peer);
  if (trusted.empty() || !trusted.Contains(peer)) {
    return client;
  }
  auto header = [&req](std::string_view name) -> std::string_view {
    auto it = req.find(beast::string_view(name.data(), name.size()));
    return it == req.end() ? std::string_view{}
                           : std::string_view(it->value().data(), it->value().size());
  };
  std::vector<std::string> chain;
  std::string proto;
  if (family == ProxyHeader::kForwarded) {
    const std::string_view forwarded = header("Forwarded");
    chain = ForwardedFor(forwarded);
    proto = ForwardedProto(forwarded);
    client.host = ForwardedHost(forwarded);
  } else {
    chain = XForwardedFor(header("X-Forwarded-For"));
    proto = std::string(XForwardedProto(header("X-Forwarded-Proto")));
    client.host = std::string(XForwardedProto(header("X-Forwarded-Host")));
  }
  client.https = beast::iequals(proto, "https");
  // Right to left: the first hop no trusted proxy vouches for is the client. A chain of
  // trusted proxies only ends at its leftmost entry. A node that is no address stops the walk
  // at the last address seen (the proxy that wrote it): an arbitrary string must not become
  // a rate-limit key of its own.
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    boost::system::error_code ec;
    const auto address = boost::asio::ip::make_address(*it, ec);
    if (ec) {
      break;
    }
    client.address = address.to_string();
    if (!trusted.Contains(client.address)) {
      break;
    }
  }
  return client;
}

}  // namespace plaudit::http
