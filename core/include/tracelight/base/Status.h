#pragma once
// Errors travel as values with a one-line message; exceptions never cross the core API.
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace tracelight {

class Status {
public:
    static Status ok() { return Status(); }
    static Status error(std::string message) { return Status(std::move(message)); }

    bool isOk() const { return !m_message.has_value(); }
    explicit operator bool() const { return isOk(); }
    const std::string& message() const {
        static const std::string empty;
        return m_message ? *m_message : empty;
    }

private:
    Status() = default;
    explicit Status(std::string message) : m_message(std::move(message)) {}
    std::optional<std::string> m_message;
};

template <typename T>
class Result {
public:
    Result(T value) : m_value(std::move(value)) {}
    Result(Status status) : m_value(std::move(status)) {}

    bool isOk() const { return std::holds_alternative<T>(m_value); }
    explicit operator bool() const { return isOk(); }
    T& value() { return std::get<T>(m_value); }
    const T& value() const { return std::get<T>(m_value); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    const std::string& message() const { return std::get<Status>(m_value).message(); }
    Status status() const { return isOk() ? Status::ok() : std::get<Status>(m_value); }

private:
    std::variant<T, Status> m_value;
};

} // namespace tracelight
