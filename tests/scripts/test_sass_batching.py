#!/usr/bin/env python3
"""scripts/sass_batching.py on SASS excerpts of the segments kernel's partial tile, as cuobjdump
prints them: four 16-byte loads issued before their fold, and the same tile with the first item's
fold between the second and third loads."""
import io
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', '..', 'scripts'))
import sass_batching  # noqa: E402

HEADER = '''
	code for sm_90
		Function : _Z7examplev
	.headerflags	@"EF_CUDA_TEXMODE_UNIFIED EF_CUDA_64BIT_ADDRESS EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
'''

BATCHED = HEADER + '''
        /*14800*/                   IADD3 R20, P5, R38, R19, RZ ;                 /* 0x0000001326147210 */
        /*148a0*/                   LDG.E.128.CONSTANT R12, desc[UR8][R14.64] ;   /* 0x000000080e0c7981 */
        /*149e0*/                   LDG.E.128.CONSTANT R16, desc[UR8][R18.64] ;   /* 0x00000008120c7981 */
        /*14a70*/                   LDG.E.128.CONSTANT R20, desc[UR8][R22.64] ;   /* 0x00000008160c7981 */
        /*14ad0*/                   LDG.E.128.CONSTANT R24, desc[UR8][R26.64] ;   /* 0x000000081a0c7981 */
        /*14ae0*/               @P6 FADD R12, R41, R12 ;                          /* 0x0000000c290c6221 */
        /*14af0*/              @!P5 FADD R13, R13, R12 ;                          /* 0x0000000c0d0dd221 */
        /*14d20*/                   BSYNC B3 ;                                    /* 0x0000000000037941 */
.L_x_12:
        /*14d30*/               @P0 BRA 0x14e30 ;                                 /* 0x0000000000000947 */
'''

EARLY = HEADER + '''
        /*14400*/                   LDG.E.128.CONSTANT R12, desc[UR10][R14.64] ;  /* 0x0000000a0e0c7981 */
        /*145b0*/                   LDG.E.128.CONSTANT R16, desc[UR10][R18.64] ;  /* 0x0000000a12107981 */
        /*14640*/               @P6 FADD R12, R39, R12 ;                          /* 0x0000000c270c6221 */
        /*14680*/                   LDG.E.128.CONSTANT R20, desc[UR10][R22.64] ;  /* 0x0000000a16147981 */
        /*146b0*/                   LDG.E.128.CONSTANT R24, desc[UR10][R26.64] ;  /* 0x0000000a1a187981 */
        /*146c0*/              @!P4 FADD R13, R13, R12 ;                          /* 0x0000000c0d0dc221 */
        /*14890*/                   BSYNC B3 ;                                    /* 0x0000000000037941 */
'''

# Two loads split by a branch: different blocks, so the use in the second is not early.
ACROSS_BLOCKS = HEADER + '''
        /*00100*/                   LDG.E R2, desc[UR4][R4.64] ;                  /* 0x0000000404027981 */
        /*00110*/                   FADD R6, R2, R6 ;                             /* 0x0000000602067221 */
        /*00120*/               @P0 BRA 0x200 ;                                   /* 0x0000000000000947 */
        /*00130*/                   LDG.E R3, desc[UR4][R8.64] ;                  /* 0x0000000408037981 */
        /*00140*/                   LDG.E R7, desc[UR4][R10.64] ;                 /* 0x00000004080a7981 */
'''


# Each of a label, a BSYNC and a BAR ends a block: a fold after it is no early use.
SPLIT_BY = {
    'label': '.L_x_3:\n',
    'BSYNC': '        /*00115*/                   BSYNC B1 ;                                    /* 0x0000000000017941 */\n',
    'BAR': '        /*00115*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;                 /* 0x0000000000007b1d */\n',
}
SPLIT = HEADER + '''
        /*00100*/                   LDG.E R2, desc[UR4][R4.64] ;                  /* 0x0000000404027981 */
        /*00110*/                   LDG.E R3, desc[UR4][R6.64] ;                  /* 0x0000000406037981 */
{split}        /*00120*/                   FADD R8, R2, R8 ;                             /* 0x0000000208087221 */
        /*00130*/                   LDG.E R9, desc[UR4][R10.64] ;                 /* 0x000000040a097981 */
        /*00140*/                   LDG.E R11, desc[UR4][R12.64] ;                /* 0x000000040c0b7981 */
'''


class SassBatching(unittest.TestCase):
    def only_block(self, text):
        functions = sass_batching.parse(text.splitlines())
        self.assertEqual(list(functions), ['_Z7examplev'])
        blocks = [b for b in functions['_Z7examplev'] if len(sass_batching.early_uses(b)[0]) >= 2]
        self.assertEqual(len(blocks), 1)
        return sass_batching.early_uses(blocks[0])

    def test_loads_issued_before_their_fold_have_no_early_use(self):
        loads, early = self.only_block(BATCHED)
        self.assertEqual(len(loads), 4)
        self.assertEqual(early, [])

    def test_a_fold_between_the_loads_is_an_early_use_of_the_first(self):
        loads, early = self.only_block(EARLY)
        self.assertEqual(len(loads), 4)
        self.assertEqual(early, [(0x14400, 0x14640)])

    def test_a_branch_ends_the_block(self):
        loads, early = self.only_block(ACROSS_BLOCKS)
        self.assertEqual(len(loads), 2)
        self.assertEqual(early, [])

    def test_a_label_a_bsync_or_a_bar_ends_the_block(self):
        for name, split in SPLIT_BY.items():
            functions = sass_batching.parse(SPLIT.format(split=split).splitlines())
            found = [sass_batching.early_uses(b) for b in functions['_Z7examplev']]
            self.assertEqual([(len(loads), early) for loads, early in found], [(2, []), (2, [])], name)
        # Without the split, the fold sits between the loads and is an early use.
        functions = sass_batching.parse(SPLIT.format(split='').splitlines())
        loads, early = sass_batching.early_uses(functions['_Z7examplev'][0])
        self.assertEqual((len(loads), early), (4, [(0x100, 0x120)]))

    def test_registers_a_load_writes_and_an_instruction_reads(self):
        self.assertEqual(sass_batching.load_registers('LDG.E.128.CONSTANT R12, desc[UR8][R14.64]'), {12, 13, 14, 15})
        self.assertEqual(sass_batching.load_registers('LDG.E.64 R4, desc[UR8][R2.64]'), {4, 5})
        self.assertEqual(sass_batching.load_registers('LDG.E R7, desc[UR8][R2.64]'), {7})
        self.assertEqual(sass_batching.load_registers('FADD R12, R41, R12'), set())
        self.assertEqual(sass_batching.load_registers('LDGDEPBAR'), set())
        self.assertEqual(sass_batching.load_registers('LDGSTS.E.BYPASS.128 [R3+0x100], desc[UR6][R4.64]'), set())
        self.assertEqual(sass_batching.load_registers('LDG.E RZ, desc[UR8][R2.64]'), set())
        self.assertEqual(sass_batching.registers_read('FADD R12, R41, R12'), {41, 12})
        self.assertEqual(sass_batching.registers_read('MOV R12, R3'), {3})
        self.assertEqual(sass_batching.registers_read('STG.E desc[UR4][R2.64], R12'), {2, 12})

    def test_the_report_names_each_early_use(self):
        out = io.StringIO()
        sass_batching.report(sass_batching.parse(EARLY.splitlines()), out)
        self.assertIn('loads  4 (16-byte  4)  used early: 14400->14640', out.getvalue())

    def test_text_without_a_function_is_refused(self):
        sys.stdin = io.StringIO('not SASS\n')
        try:
            self.assertEqual(sass_batching.main([]), 2)
        finally:
            sys.stdin = sys.__stdin__


if __name__ == '__main__':
    unittest.main()
