#pragma once
// The analysis tabs ask the app's session for their results (app/jobs); a test serves a tab from a session on
// its own database, wired as the window wires it.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "Session.h"
#include "jobs/TabJobs.h"

namespace tracelight::test {

// A session with no database: for tabs whose studies need none (the aggregates are in memory).
template <typename View>
std::unique_ptr<app::Session> served(View& view) {
    auto session = std::make_unique<app::Session>();
    app::serve(view, *session);
    return session;
}

template <typename View>
std::unique_ptr<app::Session> serveFrom(View& view, const std::string& db) {
    auto session = std::make_unique<app::Session>();
    const Status opened = session->open(QString::fromStdString(db));
    EXPECT_TRUE(opened) << db << ": " << opened.message();
    app::serve(view, *session);
    return session;
}

} // namespace tracelight::test
