#pragma once
// What Json.cpp and JsonStream.cpp share about reading with RapidJSON (private to core).
#include <rapidjson/error/error.h>
#include <rapidjson/reader.h>

#include <cstddef>
#include <string>

namespace tracelight::detail {

// Strict RFC 8259 reading: RapidJSON refuses comments, NaN/Infinity, trailing commas and unescaped control
// characters by default; we add UTF-8 validation, an iterative parser (no recursion, so deep nesting
// cannot overflow the stack) and numbers handed over as their literal text.
inline constexpr unsigned kJsonReadFlags =
    rapidjson::kParseValidateEncodingFlag | rapidjson::kParseIterativeFlag | rapidjson::kParseNumbersAsStringsFlag;

inline constexpr int kMaxJsonDepth = 256;  // deeper input is refused

inline std::string jsonParseErrorMessage(rapidjson::ParseErrorCode code) {
    using namespace rapidjson;
    switch (code) {
    case kParseErrorDocumentEmpty: return "empty JSON text";
    case kParseErrorDocumentRootNotSingular: return "unexpected text after the JSON value";
    case kParseErrorValueInvalid: return "invalid value";
    case kParseErrorObjectMissName: return "expected a string key in object";
    case kParseErrorObjectMissColon: return "expected ':' after object key";
    case kParseErrorObjectMissCommaOrCurlyBracket: return "expected ',' or '}' in object";
    case kParseErrorArrayMissCommaOrSquareBracket: return "expected ',' or ']' in array";
    case kParseErrorStringUnicodeEscapeInvalidHex: return "invalid \\u escape";
    case kParseErrorStringUnicodeSurrogateInvalid: return "lone or invalid UTF-16 surrogate in \\u escape";
    case kParseErrorStringEscapeInvalid: return "invalid escape or unescaped control character in string";
    case kParseErrorStringMissQuotationMark: return "unterminated string";
    case kParseErrorStringInvalidEncoding: return "invalid UTF-8 in string";
    case kParseErrorNumberTooBig: return "number too big for a double";
    case kParseErrorNumberMissFraction: return "number without digits after '.'";
    case kParseErrorNumberMissExponent: return "number without digits in its exponent";
    default: return "invalid JSON";
    }
}

inline bool isJsonDigit(int c) { return c >= '0' && c <= '9'; }

// RapidJSON reads "01" as the number 0 followed by an unexpected '1'. When the problem it reports is a
// digit right after a 0 that began a number, the real problem is a leading zero one byte earlier.
// before2 and before1 are the two bytes before the reported one (-1 where there is none).
inline bool isLeadingZero(int before2, int before1, int at) {
    return isJsonDigit(at) && before1 == '0' && !isJsonDigit(before2) && before2 != '.';
}

} // namespace tracelight::detail
