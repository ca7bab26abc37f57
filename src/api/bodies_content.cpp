// The bodies of the content routes: articles, comments, page comments, moderation and reports
// (api/bodies.hpp).
#include "api/bodies.hpp"
#include "api/json_fields.hpp"
#include "domain/comment_verdict.hpp"

namespace plaudit::api::bodies {

std::optional<domain::ArticleKind> ArticleKindOf(std::string_view text) {
  auto k = domain::ParseKind(text);
  if (!k || *k == domain::ArticleKind::kPage) {
    return std::nullopt;
  }
  return k;
}

Result<domain::ArticleInput> Article(const boost::json::object& body, bool create) {
  // if/else: the two lists are initializer_lists, alive for the call only.
  Status known;
  if (create) {
    known = OnlyFields(
        body, {"title", "content", "kind", "status", "pinned", "allowComments", "moderation"});
  } else {
    known =
        OnlyFields(body, {"title", "content", "status", "pinned", "allowComments", "moderation"});
  }
  PL_CHECK(known);
  domain::ArticleInput in;
  PL_TRY(in.title, OptionalString(body, "title"));
  PL_TRY(in.content, OptionalString(body, "content"));
  PL_TRY(auto kind, OptionalString(body, "kind"));
  if (kind) {
    in.kind = ArticleKindOf(*kind);
    if (!in.kind) {
      return Fail(ErrorCode::kInvalidArgument, "kind must be article or post");
    }
  }
  PL_TRY(auto status, OptionalString(body, "status"));
  if (status) {
    in.status = domain::ParseStatus(*status);
    if (!in.status) {
      return Fail(ErrorCode::kInvalidArgument, "status must be draft or published");
    }
  }
  PL_TRY(in.pinned, OptionalBool(body, "pinned"));
  PL_TRY(in.allow_comments, OptionalBool(body, "allowComments"));
  if (const auto* m = body.if_contains("moderation")) {
    if (m->is_null()) {
      in.moderation = "";
    } else if (!m->is_string() || !domain::ParsePolicy(m->as_string())) {
      return Fail(ErrorCode::kInvalidArgument, "moderation must be null, off, first or all");
    } else {
      in.moderation = std::string(m->as_string());
    }
  }
  return in;
}

// Only these fields: identity (the author) comes from the session alone.
Result<domain::CommentInput> NewComment(const boost::json::object& body) {
  PL_CHECK(OnlyFields(body, {"body", "parentId", "replyToUserId", "website", "formAgeMs"}));
  domain::CommentInput in;
  PL_TRY(in.body, RequiredString(body, "body"));
  PL_TRY(in.parent_id, OptionalId(body, "parentId"));
  PL_TRY(in.reply_to_user_id, OptionalId(body, "replyToUserId"));
  // The widget's spam signals (API.md "Moderation"): a hidden field people leave empty, and
  // how long the form was open.
  if (auto it = body.find("website"); it != body.end() && !it->value().is_null()) {
    if (!it->value().is_string()) {
      return Fail(ErrorCode::kInvalidArgument, "website must be a string");
    }
    in.honeypot = std::string(it->value().as_string());
  }
  if (auto it = body.find("formAgeMs"); it != body.end() && !it->value().is_null()) {
    if (!it->value().is_int64() || it->value().as_int64() < 0) {
      return Fail(ErrorCode::kInvalidArgument, "formAgeMs must be a non-negative integer");
    }
    in.form_age_ms = it->value().as_int64();
  }
  return in;
}

Result<std::optional<domain::GuestName>> Guest(boost::json::object& body) {
  auto it = body.find("guest");
  if (it == body.end()) {
    return std::nullopt;
  }
  const boost::json::value guest = it->value();
  body.erase(it);
  if (!guest.is_object()) {
    return Fail(ErrorCode::kInvalidArgument, "guest must be an object");
  }
  PL_CHECK(OnlyFields(guest.as_object(), {"name", "email"}));
  PL_TRY(auto name, RequiredString(guest.as_object(), "name"));
  PL_TRY(auto email, OptionalString(guest.as_object(), "email"));
  return domain::GuestName{std::move(name), email.value_or("")};
}

Result<PageComment> NewPageComment(boost::json::object body) {
  PageComment out;
  PL_TRY(out.title, OptionalString(body, "title"));
  body.erase("title");
  PL_TRY(out.comment, NewComment(body));
  return out;
}

Result<std::string> CommentText(const boost::json::object& body) {
  PL_CHECK(OnlyFields(body, {"body"}));
  return RequiredString(body, "body");
}

namespace {

Result<sql::ModerationAction> ActionOf(std::string_view name) {
  if (name == "approve") {
    return sql::ModerationAction::kApprove;
  }
  if (name == "spam") {
    return sql::ModerationAction::kSpam;
  }
  if (name == "delete") {
    return sql::ModerationAction::kDelete;
  }
  if (name == "restore") {
    return sql::ModerationAction::kRestore;
  }
  return Fail(ErrorCode::kInvalidArgument, "action must be approve, spam, delete or restore");
}

}  // namespace

Result<ModerationRequest> Moderation(const boost::json::object& body) {
  PL_CHECK(OnlyFields(body, {"ids", "action"}));
  auto it = body.find("ids");
  if (it == body.end() || !it->value().is_array() || it->value().as_array().empty() ||
      it->value().as_array().size() > kMaxModerated) {
    return Fail(ErrorCode::kInvalidArgument, "ids must be an array of 1 to 100 comment ids");
  }
  ModerationRequest out;
  for (const auto& v : it->value().as_array()) {
    if (!v.is_int64() || v.as_int64() <= 0) {
      return Fail(ErrorCode::kInvalidArgument, "ids must be positive integers");
    }
    out.ids.push_back(v.as_int64());
  }
  PL_TRY(auto action, RequiredString(body, "action"));
  PL_TRY(out.action, ActionOf(action));
  return out;
}

}  // namespace plaudit::api::bodies
