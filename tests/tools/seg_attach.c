/* SPDX-License-Identifier: MIT */
/* seg_attach.c - see seg_attach.h. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "seg_attach.h"

int seg_attach(pid_t pid, struct top_seg *s, struct top_proc *p, char *err, size_t errlen)
{
	struct top_segname *v;
	size_t n = top_shm_list(TOP_SHM_DIR, (uint32_t)getuid(), &v);
	char path[128];
	int rc = -1;

	err[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		if (v[i].pid != pid)
			continue;
		snprintf(path, sizeof(path), "%s/%s", TOP_SHM_DIR, v[i].name);
		top_proc_init(p, pid, v[i].starttime);
		if (top_seg_open(s, path, err, errlen) != 0) {
			top_proc_free(p);
			continue;
		}
		rc = top_seg_read(s, p, err, errlen);
		if (rc < 0) {
			top_seg_close(s);
			top_proc_free(p);
		}
		break;
	}
	free(v);
	return rc;
}
