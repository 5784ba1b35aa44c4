# Writes the ctest file for a doctest binary from one `--list-test-cases --reporters=xml` run: one ctest
# test per case, labelled with its doctest suite. (doctest's own discovery starts the binary once per case
# to learn its suite, which costs minutes under the sanitizers.)
# Inputs: TEST_EXECUTABLE, TEST_WORKING_DIR, TEST_TIMEOUT, CTEST_FILE.
execute_process(
  COMMAND "${TEST_EXECUTABLE}" --list-test-cases --reporters=xml
  OUTPUT_VARIABLE listing
  RESULT_VARIABLE result
  WORKING_DIRECTORY "${TEST_WORKING_DIR}")
if(NOT result EQUAL 0)
  message(FATAL_ERROR "listing the tests of ${TEST_EXECUTABLE} failed (${result}):\n${listing}")
endif()

function(xml_unescape out text)
  string(REPLACE "&quot;" "\"" text "${text}")
  string(REPLACE "&apos;" "'" text "${text}")
  string(REPLACE "&lt;" "<" text "${text}")
  string(REPLACE "&gt;" ">" text "${text}")
  string(REPLACE "&amp;" "&" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

set(script "")
string(REGEX MATCHALL "<TestCase [^>]*>" cases "${listing}")
set(count 0)
foreach(case IN LISTS cases)
  if(NOT case MATCHES " name=\"([^\"]*)\"")
    message(FATAL_ERROR "unexpected test listing entry: ${case}")
  endif()
  xml_unescape(name "${CMAKE_MATCH_1}")
  set(suite "")
  if(case MATCHES " testsuite=\"([^\"]*)\"")
    xml_unescape(suite "${CMAKE_MATCH_1}")
  endif()
  # Bracket arguments keep spaces, quotes and semicolons in names intact.
  string(APPEND script
    "add_test([==[${name}]==] [==[${TEST_EXECUTABLE}]==] [==[--test-case=${name}]==])\n"
    "set_tests_properties([==[${name}]==] PROPERTIES WORKING_DIRECTORY [==[${TEST_WORKING_DIR}]==]"
    " TIMEOUT ${TEST_TIMEOUT} LABELS [==[${suite}]==])\n")
  math(EXPR count "${count} + 1")
endforeach()
if(count EQUAL 0)
  message(FATAL_ERROR "${TEST_EXECUTABLE} lists no tests")
endif()
file(WRITE "${CTEST_FILE}" "${script}")
