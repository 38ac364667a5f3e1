# Read by CTest before it runs any test of a sanitizer build (tests/CMakeLists.txt adds it to the
# directory's TEST_INCLUDE_FILES): the environment set here is inherited by every test process,
# including the ones gtest_discover_tests finds. UBSan reports fail the test (by default UBSan prints
# and carries on); third-party leaks and UB in third-party headers are suppressed only by the named lists in
# lsan.supp and ubsan.supp.
set(ENV{LSAN_OPTIONS} "suppressions=${CMAKE_CURRENT_LIST_DIR}/lsan.supp:print_suppressions=0")
set(ENV{UBSAN_OPTIONS} "halt_on_error=1:print_stacktrace=1:suppressions=${CMAKE_CURRENT_LIST_DIR}/ubsan.supp")
