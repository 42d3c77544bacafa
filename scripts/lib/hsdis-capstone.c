/*
 * A HotSpot disassembler plugin (hsdis) over Debian's Capstone, for -XX:+PrintAssembly and JMH's
 * -prof perfasm on x86-64. Debian's own libhsdis0-fcml exports only the pre-JDK-13 entry point
 * (decode_instructions), which JDK 17/25 no longer call, so it prints hex only.
 *
 * The entry point HotSpot looks up (src/hotspot/share/compiler/disassembler.cpp names it):
 *   decode_instructions_virtual(start_va, end_va, buffer, length, event, event_stream,
 *                               printf, printf_stream, options, newline)
 * For each instruction we send the "insn" event with its address (HotSpot prints the address and any
 * relocation/comment there), the text through printf, then "/insn" with the address after it.
 * Bytes Capstone cannot decode (stubs' data, padding) are printed as .byte and skipped one at a time.
 * Returns the address after the last byte decoded. Built by ensure_hsdis (scripts/lib/ensure-tools.sh).
 */
#include <capstone/capstone.h>
#include <stdint.h>
#include <stddef.h>

typedef void *(*hsdis_event_fn)(void *stream, const char *event, void *arg);
typedef int (*hsdis_printf_fn)(void *stream, const char *format, ...);

void *decode_instructions_virtual(uintptr_t start_va, uintptr_t end_va, unsigned char *buffer,
                                  uintptr_t length, hsdis_event_fn event, void *event_stream,
                                  hsdis_printf_fn printf_fn, void *printf_stream, const char *options,
                                  int newline) {
  (void) end_va;
  (void) options;
  csh handle;
  if (cs_open(CS_ARCH_X86, CS_MODE_64, &handle) != CS_ERR_OK) {
    return (void *) start_va;
  }
  cs_insn *insn = cs_malloc(handle);
  const uint8_t *code = buffer;
  size_t left = length;
  uint64_t va = start_va;
  while (left > 0) {
    uint64_t at = va;
    if (event) event(event_stream, "insn", (void *) (uintptr_t) at);
    if (cs_disasm_iter(handle, &code, &left, &va, insn)) {
      printf_fn(printf_stream, "%-7s %s", insn->mnemonic, insn->op_str);
    } else { /* not an instruction: show the byte and step over it */
      printf_fn(printf_stream, ".byte   0x%02x", *code);
      code++;
      left--;
      va++;
    }
    if (event) event(event_stream, "/insn", (void *) (uintptr_t) va);
    if (newline) printf_fn(printf_stream, "\n");
  }
  cs_free(insn, 1);
  cs_close(&handle);
  return (void *) (uintptr_t) va;
}
