#pragma once
// Kernel names as the tools print them. ncu prints a kernel demangled ("reduceInterleaved(int *, int
// *, unsigned int)", "void warpfold::lab::fixed::reduceUnrolling<8u>(...)") or as its bare function
// name; cuobjdump lists it mangled. These helpers reduce every form to something comparable.

#include <optional>
#include <string>
#include <string_view>

namespace warpfold::profile {

// The demangled name of an Itanium-mangled symbol, or nullopt when it is not one.
std::optional<std::string> demangle(const std::string& mangled);

// "void ns::f<8u>(int*, int*)" → "ns::f<8u>": no return type, no parameter list.
std::string qualified_name(std::string_view demangled);

// "void ns::f<8u>(int*, int*)" → "f": the function's own identifier, without scope or template arguments.
std::string base_identifier(std::string_view name);

// "f<8u>" → "f<8>": drops the unsigned suffix nvcc's demangled template arguments carry, so a
// user's "reduceCompleteUnroll<512>" finds "reduceCompleteUnroll<512u>".
std::string without_unsigned_suffixes(std::string_view name);

// Whether a kernel ncu reported (in any of its name forms) is the lesson kernel `expected`
// (a registry name: "reduceInterleaved", "maskKernel<0x01>", or "reduceUnrolling8" for the
// template reduceUnrolling<8>): their base identifiers agree, or agree once `expected`'s trailing
// digits are taken as the template argument.
bool names_same_kernel(std::string_view reported, std::string_view expected);

}  // namespace warpfold::profile
