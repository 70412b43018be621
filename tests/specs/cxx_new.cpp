// SPDX-License-Identifier: MIT
/*
 * cxx_new N - calls each of C++'s 12 replaceable operator delete forms
 * N times, and the 8 new forms N or 2N times, through their own names (::operator new(...)),
 * so the compiler cannot pick another form or drop a pair.  Built at -O0;
 * prints nothing through iostreams, whose set-up allocates.
 */
#include <cstdio>
#include <cstdlib>
#include <new>

int main(int argc, char **argv)
{
	long n = argc > 1 ? std::atol(argv[1]) : 0;
	const std::align_val_t al = std::align_val_t(64);
	const std::nothrow_t &nt = std::nothrow;

	for (long i = 0; i < n; i++) {
		::operator delete(::operator new(16));
		::operator delete(::operator new(16), std::size_t(16));
		::operator delete(::operator new(16, nt), nt);
		::operator delete(::operator new(16, al), al);
		::operator delete(::operator new(16, al), std::size_t(16), al);
		::operator delete(::operator new(16, al, nt), al, nt);
		::operator delete[](::operator new[](16));
		::operator delete[](::operator new[](16), std::size_t(16));
		::operator delete[](::operator new[](16, nt), nt);
		::operator delete[](::operator new[](16, al), al);
		::operator delete[](::operator new[](16, al), std::size_t(16), al);
		::operator delete[](::operator new[](16, al, nt), al, nt);
	}
	std::printf("%ld rounds\n", n);
	return 0;
}
