/* SPDX-License-Identifier: MIT */
/*
 * attach_hold - a library whose constructor keeps the loader's lock: it
 * says "held" on stdout, then waits until the FIFO named by
 * ATTACH_HOLD_FIFO is opened and closed by a writer (tests/attach: a
 * process stopped inside dlopen in another thread).
 */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

__attribute__((constructor)) static void hold(void)
{
	const char *fifo = getenv("ATTACH_HOLD_FIFO");
	char c;

	if (fifo == NULL || write(STDOUT_FILENO, "held\n", 5) != 5)
		return;
	int fd = open(fifo, O_RDONLY);
	if (fd >= 0) {
		while (read(fd, &c, 1) > 0)
			;
		close(fd);
	}
}
