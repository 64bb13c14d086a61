/*
 * insn.c — memory access sizes of x86_64 instructions (see insn.h).
 */
#include "insn.h"

#if defined(__x86_64__)

/* The operand size of an instruction whose size follows the prefixes:
 * 8 with REX.W, 2 with the 0x66 prefix, else 4. */
static size_t op_size(bool rex_w, bool opsize16)
{
    return rex_w ? 8 : opsize16 ? 2 : 4;
}

/* Two-byte opcodes (after 0x0f), with the mandatory-prefix bytes seen. */
static size_t two_byte(unsigned char op, bool rex_w, bool p66, bool pf3, bool pf2)
{
    switch (op) {
    case 0xb6: case 0xbe:                     /* movzx, movsx r, r/m8  */
        return 1;
    case 0xb7: case 0xbf:                     /* movzx, movsx r, r/m16 */
        return 2;
    case 0x10: case 0x11:                     /* movups/movupd/movss/movsd */
        return pf3 ? 4 : pf2 ? 8 : 16;
    case 0x28: case 0x29: case 0x2b:          /* movaps/movapd, movntps */
    case 0xe7:                                /* movntdq (66), movntq   */
        return p66 || op != 0xe7 ? 16 : 8;
    case 0x6f: case 0x7f:                     /* movq mm / movdqa / movdqu */
        return p66 || pf3 ? 16 : 8;
    case 0x6e: case 0x7e:                     /* movd/movq; f3 0f 7e movq */
        return pf3 && op == 0x7e ? 8 : rex_w ? 8 : 4;
    case 0xd6:                                /* movq xmm/m64 (66)     */
        return 8;
    case 0x12: case 0x16:                     /* movlps/movhps/movddup; f3: */
        return pf3 ? 16 : 8;                  /* movsldup/movshdup, m128    */
    case 0x13: case 0x17:                     /* movlps/movhps stores       */
        return 8;
    default:
        return 0;
    }
}

size_t cg_insn_access_size(const unsigned char *p)
{
    bool p66 = false, pf2 = false, pf3 = false, rex_w = false;
    for (int i = 0; i < 14; i++, p++) {       /* legacy prefixes */
        unsigned char b = *p;
        if (b == 0x66)
            p66 = true;
        else if (b == 0xf2)
            pf2 = true;
        else if (b == 0xf3)
            pf3 = true;
        else if (b == 0x2e || b == 0x36 || b == 0x3e || b == 0x26 || b == 0x64 || b == 0x65 ||
                 b == 0x67 || b == 0xf0)
            continue;
        else
            break;
    }
    if ((*p & 0xf0) == 0x40) {                /* REX */
        rex_w = (*p & 8) != 0;
        p++;
    }
    unsigned char op = *p;
    if (op == 0xc5 || op == 0xc4) {           /* VEX: vmovdqu, vmovups, ... */
        bool l;
        unsigned char pp, map = 1, o;
        if (op == 0xc5) {
            l = (p[1] >> 2) & 1;
            pp = p[1] & 3;
            o = p[2];
        } else {
            map = p[1] & 0x1f;
            l = (p[2] >> 2) & 1;
            pp = p[2] & 3;
            rex_w = (p[2] >> 7) & 1;
            o = p[3];
        }
        if (map != 1)
            return 0;
        if (o == 0x10 || o == 0x11)           /* vmovss/vmovsd only as m32/m64 */
            return pp == 2 ? 4 : pp == 3 ? 8 : l ? 32 : 16;
        if (o == 0x28 || o == 0x29 || o == 0x6f || o == 0x7f || o == 0x2b || o == 0xe7)
            return l ? 32 : 16;
        if (o == 0x6e || o == 0x7e || o == 0xd6)   /* vmovd/vmovq; f3 0f 7e: vmovq m64 */
            return rex_w || o == 0xd6 || (o == 0x7e && pp == 2) ? 8 : 4;
        return 0;
    }
    if (op == 0x62 && (p[1] & 0x0c) == 0 && (p[2] & 4)) {   /* EVEX (AVX-512) moves */
        unsigned map = p[1] & 3, pp = p[2] & 3, ll = (p[3] >> 5) & 3, o = p[4];
        if (map != 1 || ll == 3)
            return 0;
        if ((o == 0x10 || o == 0x11) && pp >= 2)
            return pp == 2 ? 4 : 8;
        if (o == 0x10 || o == 0x11 || o == 0x28 || o == 0x29 || o == 0x6f || o == 0x7f ||
            o == 0x2b || o == 0xe7)
            return (size_t)16 << ll;
        return 0;
    }
    if (op == 0x0f)
        return two_byte(p[1], rex_w, p66, pf3, pf2);
    switch (op) {
    case 0x88: case 0x8a: case 0xc6: case 0x80:   /* mov r/m8, mov imm8, grp1 */
    case 0x00: case 0x02: case 0x08: case 0x0a: case 0x20: case 0x22:
    case 0x28: case 0x2a: case 0x30: case 0x32: case 0x38: case 0x3a:
    case 0x84: case 0x86: case 0xa4: case 0xaa: case 0xfe:
        return 1;
    case 0xff:                                /* call, jmp, push m64; inc, dec */
        return ((p[1] >> 3) & 7) >= 2 ? 8 : op_size(rex_w, p66);
    case 0x89: case 0x8b: case 0xc7: case 0x81: case 0x83:
    case 0x01: case 0x03: case 0x09: case 0x0b: case 0x21: case 0x23:
    case 0x29: case 0x2b: case 0x31: case 0x33: case 0x39: case 0x3b:
    case 0x85: case 0x87: case 0xa5: case 0xab:
        return op_size(rex_w, p66);
    default:
        return 0;
    }
}

#else

size_t cg_insn_access_size(const unsigned char *p)
{
    (void)p;
    return 0;
}

#endif
