# Writes the ctest file for a doctest binary from one `--list-test-cases --reporters=xml` run: one ctest
# test per case, labelled with its doctest suite. (doctest's own discovery starts the binary once per case
# to learn its suite, which costs minutes under the sanitizers.)
# Inputs: TEST_EXECUTABLE, TEST_WORKING_DIR, TEST_TIMEOUT, CTEST_FILE; TEST_COSTS, a file of
# "seconds<TAB>name" lines (scripts/test_costs.sh), gives the slow tests a COST so that ctest starts them
# first even on a clean build, where it has no timings of its own.
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

set(cost_names "")
set(cost_seconds "")
if(DEFINED TEST_COSTS AND EXISTS "${TEST_COSTS}")
  file(STRINGS "${TEST_COSTS}" cost_lines REGEX "^[0-9]+\t")
  foreach(line IN LISTS cost_lines)
    string(FIND "${line}" "\t" tab)
    string(SUBSTRING "${line}" 0 ${tab} seconds)
    math(EXPR name_start "${tab} + 1")
    string(SUBSTRING "${line}" ${name_start} -1 cost_name)
    list(APPEND cost_names "${cost_name}")
    list(APPEND cost_seconds "${seconds}")
  endforeach()
endif()

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
  list(FIND cost_names "${name}" cost_index)
  if(cost_index GREATER -1)
    list(GET cost_seconds ${cost_index} seconds)
    string(APPEND script "set_tests_properties([==[${name}]==] PROPERTIES COST ${seconds})\n")
  endif()
  math(EXPR count "${count} + 1")
endforeach()
if(count EQUAL 0)
  message(FATAL_ERROR "${TEST_EXECUTABLE} lists no tests")
endif()
file(WRITE "${CTEST_FILE}" "${script}")
