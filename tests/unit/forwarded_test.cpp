// The client behind trusted proxies (http/forwarded.hpp): X-Forwarded-For and RFC 7239
// Forwarded parsing, and that neither is believed from a peer outside --trusted-proxies.
#include "http/forwarded.hpp"

#include <gtest/gtest.h>

namespace plaudit::http {
namespace {

using Nodes = std::vector<std::string>;

RawRequest WithHeaders(std::vector<std::pair<std::string, std::string>> headers) {
  RawRequest req{beast::http::verb::get, "/api/v1/users/1", 11};
  for (const auto& [name, value] : headers) {
    req.insert(name, value);
  }
  return req;
}

AddressSet Trusted(std::string_view text) { return AddressSet::Parse(text).value(); }

TEST(Forwarded, ForNodesLeftmostFirstWithPortsBracketsAndQuotesDropped) {
  EXPECT_EQ(ForwardedFor("for=192.0.2.60;proto=http;by=203.0.113.43"), Nodes{"192.0.2.60"});
  EXPECT_EQ(ForwardedFor(R"(For="[2001:db8:cafe::17]:4711")"), Nodes{"2001:db8:cafe::17"});
  EXPECT_EQ(ForwardedFor(R"(for=192.0.2.43, for="[2001:db8::1]", for=198.51.100.17:80)"),
            (Nodes{"192.0.2.43", "2001:db8::1", "198.51.100.17"}));
  EXPECT_EQ(ForwardedFor("for=unknown, proto=https"), Nodes{"unknown"});
  // A quoted ',' or ';' does not split the header.
  EXPECT_EQ(ForwardedFor(R"(for="_a,b;c", for=192.0.2.1)"), (Nodes{"_a,b;c", "192.0.2.1"}));
  EXPECT_EQ(ForwardedFor(""), Nodes{});
}

TEST(Forwarded, ProtoOfTheNearestProxy) {
  EXPECT_EQ(ForwardedProto("for=192.0.2.1;proto=https"), "https");
  EXPECT_EQ(ForwardedProto("for=192.0.2.1;proto=http, for=10.0.0.1;proto=https"), "https");
  EXPECT_EQ(ForwardedProto(R"(for=192.0.2.1;PROTO="https")"), "https");
  EXPECT_EQ(ForwardedProto("for=192.0.2.1"), "");
}

TEST(Forwarded, XForwardedForItemsAndProto) {
  EXPECT_EQ(XForwardedFor("203.0.113.7"), Nodes{"203.0.113.7"});
  EXPECT_EQ(XForwardedFor(" 203.0.113.7 ,2001:db8::1, 10.0.0.2:8080,[2001:db8::2]:443"),
            (Nodes{"203.0.113.7", "2001:db8::1", "10.0.0.2", "2001:db8::2"}));
  EXPECT_EQ(XForwardedFor(""), Nodes{});
  EXPECT_EQ(XForwardedProto("https"), "https");
  EXPECT_EQ(XForwardedProto("http, https "), "https");
}

TEST(Forwarded, HeadersFromAnUntrustedPeerAreIgnored) {
  auto req = WithHeaders({{"X-Forwarded-For", "198.51.100.1"},
                          {"Forwarded", "for=198.51.100.2;proto=https"},
                          {"X-Forwarded-Proto", "https"}});
  for (std::string_view trusted : {"", "10.0.0.0/8"}) {
    ClientEndpoint c = ClientOf(req, "192.0.2.9", Trusted(trusted));
    EXPECT_EQ(c.address, "192.0.2.9") << trusted;
    EXPECT_FALSE(c.https) << trusted;
  }
}

TEST(Forwarded, TheRightmostHopNoTrustedProxyVouchesForIsTheClient) {
  const AddressSet trusted = Trusted("10.0.0.0/8");
  // The client wrote the leftmost entry itself; the proxies appended the rest.
  auto req = WithHeaders({{"X-Forwarded-For", "6.6.6.6, 203.0.113.7, 10.0.0.3"}});
  EXPECT_EQ(ClientOf(req, "10.0.0.2", trusted).address, "203.0.113.7");
  // Only trusted proxies: the leftmost is all there is.
  req = WithHeaders({{"X-Forwarded-For", "10.0.0.5, 10.0.0.3"}});
  EXPECT_EQ(ClientOf(req, "10.0.0.2", trusted).address, "10.0.0.5");
  // No header: the proxy itself.
  EXPECT_EQ(ClientOf(WithHeaders({}), "10.0.0.2", trusted).address, "10.0.0.2");
}

TEST(Forwarded, OnlyTheConfiguredFamilyIsReadAndQuotedIpv6IsCanonical) {
  const AddressSet trusted = Trusted("127.0.0.1");
  auto req = WithHeaders({{"Forwarded", R"(for="[2001:DB8:0::1]:4711";proto=https)"},
                          {"X-Forwarded-For", "198.51.100.1"}});
  ClientEndpoint c = ClientOf(req, "127.0.0.1", trusted, ProxyHeader::kForwarded);
  EXPECT_EQ(c.address, "2001:db8::1");
  EXPECT_TRUE(c.https);
  // The default family: a client's own Forwarded line (a proxy that writes X-Forwarded-For
  // passes it on) names nothing, and a bare proto= in it changes nothing.
  c = ClientOf(req, "127.0.0.1", trusted);
  EXPECT_EQ(c.address, "198.51.100.1");
  EXPECT_FALSE(c.https);
  req = WithHeaders({{"Forwarded", "proto=https"}, {"X-Forwarded-For", "198.51.100.1"}});
  EXPECT_EQ(ClientOf(req, "127.0.0.1", trusted).address, "198.51.100.1");
  // And the other way round: behind a Forwarded proxy, X-Forwarded-For is the client's.
  req = WithHeaders({{"Forwarded", "for=198.51.100.2"},
                     {"X-Forwarded-For", "6.6.6.6"},
                     {"X-Forwarded-Proto", "https"}});
  c = ClientOf(req, "127.0.0.1", trusted, ProxyHeader::kForwarded);
  EXPECT_EQ(c.address, "198.51.100.2");
  EXPECT_FALSE(c.https);
}

TEST(Forwarded, ANodeThatIsNoAddressEndsTheWalkAtTheProxyThatWroteIt) {
  const AddressSet trusted = Trusted("127.0.0.1,10.0.0.0/8");
  for (const char* node : {"unknown", "_hidden", "\"_x123\"", "\"\""}) {
    auto req = WithHeaders({{"Forwarded", std::string("for=") + node + ", for=10.0.0.7"}});
    EXPECT_EQ(ClientOf(req, "127.0.0.1", trusted, ProxyHeader::kForwarded).address, "10.0.0.7")
        << node;
  }
  auto req = WithHeaders({{"X-Forwarded-For", "203.0.113.9, garbage"}});
  EXPECT_EQ(ClientOf(req, "127.0.0.1", trusted).address, "127.0.0.1");
}

TEST(Forwarded, TheHostAProxyRewroteComesFromATrustedPeerOnly) {
  EXPECT_EQ(ForwardedHost(R"(for=192.0.2.1;host="Blog.Example:8443";proto=https)"),
            "Blog.Example:8443");
  EXPECT_EQ(ForwardedHost("for=192.0.2.1"), "");
  auto req = WithHeaders({{"X-Forwarded-Host", "plaudit.example"}});
  EXPECT_EQ(ClientOf(req, "127.0.0.1", Trusted("127.0.0.1")).host, "plaudit.example");
  EXPECT_EQ(ClientOf(req, "192.0.2.9", Trusted("127.0.0.1")).host, "");
  req = WithHeaders(
      {{"Forwarded", "for=192.0.2.1;host=a.example"}, {"X-Forwarded-Host", "b.example"}});
  // Each family's host comes with that family alone.
  EXPECT_EQ(ClientOf(req, "127.0.0.1", Trusted("127.0.0.1"), ProxyHeader::kForwarded).host,
            "a.example");
  EXPECT_EQ(ClientOf(req, "127.0.0.1", Trusted("127.0.0.1")).host, "b.example");
}

TEST(Forwarded, XForwardedProtoFromATrustedPeer) {
  const AddressSet trusted = Trusted("127.0.0.1");
  EXPECT_TRUE(ClientOf(WithHeaders({{"X-Forwarded-Proto", "HTTPS"}}), "127.0.0.1", trusted).https);
  EXPECT_FALSE(ClientOf(WithHeaders({{"X-Forwarded-Proto", "http"}}), "127.0.0.1", trusted).https);
  EXPECT_FALSE(ClientOf(WithHeaders({}), "127.0.0.1", trusted).https);
}

}  // namespace
}  // namespace plaudit::http
