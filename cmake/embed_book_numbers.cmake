# Writes OUTPUT, a C++ source holding INPUT (src/lab/book/book_numbers.json) as one string, so the
# book's numbers have one source of truth and the binary needs no file at run time.
#   cmake -DINPUT=... -DOUTPUT=... -P embed_book_numbers.cmake
file(READ "${INPUT}" text)
string(FIND "${text}" ")book_numbers" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${INPUT} contains ')book_numbers', the raw string's delimiter")
endif()
file(WRITE "${OUTPUT}.tmp"
  "// Generated from src/lab/book/book_numbers.json by cmake/embed_book_numbers.cmake: edit that file.\n"
  "namespace warpfold::lab::book {\n"
  "extern const char* const kBookNumbersJson;\n"
  "const char* const kBookNumbersJson = R\"book_numbers(${text})book_numbers\";\n"
  "}  // namespace warpfold::lab::book\n")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUTPUT}.tmp")
