/* SPDX-License-Identifier: MIT */
/*
 * overprog.c - more call sites than a row keeps (issue 23): ov_00 ...
 * ov_19, called in that order, each call sl_work 100 x (its number + 1)
 * times from its own call instruction: 21000 calls, of which the first
 * 16 sites make 13600 and the last four 7400: the 16 busiest are named,
 * the first four are "(other callers)", 1000.
 */
#include "sitelib.h"

#define OV_SITES 20

/* A function, and a declaration of it again that the ';' after OV(k) ends. */
#define OV(k)                                                                                      \
	__attribute__((noinline)) unsigned ov_##k(void)                                            \
	{                                                                                          \
		unsigned acc = 0;                                                                  \
		for (int i = 0; i < 100 * (1##k - 99); i++)                                        \
			acc += sl_work(i);                                                         \
		return acc;                                                                        \
	}                                                                                          \
	unsigned ov_##k(void)

OV(00);
OV(01);
OV(02);
OV(03);
OV(04);
OV(05);
OV(06);
OV(07);
OV(08);
OV(09);
OV(10);
OV(11);
OV(12);
OV(13);
OV(14);
OV(15);
OV(16);
OV(17);
OV(18);
OV(19);

static unsigned (*const ov[OV_SITES])(void) = {
        ov_00, ov_01, ov_02, ov_03, ov_04, ov_05, ov_06, ov_07, ov_08, ov_09,
        ov_10, ov_11, ov_12, ov_13, ov_14, ov_15, ov_16, ov_17, ov_18, ov_19,
};

int main(void)
{
	unsigned acc = 0;

	for (int k = 0; k < OV_SITES; k++)
		acc += ov[k]();
	return acc == 42 ? 1 : 0;
}
