// SPDX-License-Identifier: MIT
// A C++ program whose allocations go through operator new to malloc:
// std::string, std::vector and std::thread.
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

int main()
{
	std::vector<std::string> out(4);
	std::vector<std::thread> threads;

	for (int t = 0; t < 4; t++)
		threads.emplace_back([t, &out] {
			std::vector<std::string> words;
			for (int i = 0; i < 5000; i++)
				words.push_back(std::string(16 + i % 64, char('a' + t)));
			size_t n = 0;
			for (const auto &w : words)
				n += w.size();
			out[t] = std::to_string(n);
		});
	for (auto &th : threads)
		th.join();
	for (const auto &s : out)
		std::printf("%s\n", s.c_str());
	return 0;
}
