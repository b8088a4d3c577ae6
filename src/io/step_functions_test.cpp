#include "h5ad_sizer/io/step_functions.hpp"

#include <gtest/gtest.h>

namespace h5ad_sizer::io {
namespace {

HttpResponse answer(long status, std::string body, std::map<std::string, std::string> headers = {}) {
  HttpResponse response;
  response.status = status;
  response.body = std::move(body);
  response.headers = std::move(headers);
  return response;
}

TEST(AwsError, JsonTypeLosesItsNamespace) {
  const AwsError error = parse_aws_error(
      answer(400, R"({"__type":"com.amazonaws.swf.service.model.v20120810#TaskTimedOut","message":"Task Timed Out"})"));
  EXPECT_EQ(error.code, "TaskTimedOut");
  EXPECT_EQ(error.message, "Task Timed Out");
}

TEST(AwsError, XmlBodiesAsSomeFrontEndsSendThem) {
  const AwsError error = parse_aws_error(answer(
      403, "<ErrorResponse><Error><Type>Sender</Type><Code>SignatureDoesNotMatch</Code><Message>The request "
           "signature we calculated does not match</Message></Error></ErrorResponse>"));
  EXPECT_EQ(error.code, "SignatureDoesNotMatch");
  EXPECT_EQ(error.message, "The request signature we calculated does not match");
}

TEST(AwsError, HeaderOrStatusWhenTheBodySaysNothing) {
  EXPECT_EQ(parse_aws_error(answer(400, "", {{"x-amzn-errortype", "ThrottlingException:http://internal"}})).code,
            "ThrottlingException");
  EXPECT_EQ(parse_aws_error(answer(502, "<html>Bad Gateway</html>")).code, "HTTP 502");
}

TEST(TruncateUtf8, NeverSplitsACharacter) {
  EXPECT_EQ(truncate_utf8("abc", 10), "abc");
  EXPECT_EQ(truncate_utf8("abcdef", 3), "abc");
  const std::string text = "a\xC3\xA9z";  // a, é (2 bytes), z
  EXPECT_EQ(truncate_utf8(text, 2), "a");
  EXPECT_EQ(truncate_utf8(text, 3), "a\xC3\xA9");
}

}  // namespace
}  // namespace h5ad_sizer::io
