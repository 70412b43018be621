// SPDX-License-Identifier: MIT
// abicxx.cpp - a C++ function of the test api, known to the spec only by
// its mangled name (_ZN2ab5scaleEid).
namespace ab
{
double scale(int k, double x);
double scale(int k, double x)
{
	return k * x + 0.5;
}
} // namespace ab
