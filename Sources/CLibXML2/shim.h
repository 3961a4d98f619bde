// libxml2's SAX2 interface for Swift (the VAST and VMAP reader in AdServer).
#ifndef CLIBXML2_SHIM_H
#define CLIBXML2_SHIM_H

// Debian builds libxml2 with ICU, whose headers clash with the copy of ICU inside the Swift
// toolchain's Foundation. Only libxml2's encoding handler structs (never used from Swift, only
// pointed to) depend on it, so its ICU part is left out of what Swift sees.
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED

#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/SAX2.h>
#include <libxml/xmlerror.h>

/// XML_SAX2_MAGIC, which Swift does not import (a macro).
static inline unsigned int clibxml2_sax2_magic(void) { return XML_SAX2_MAGIC; }

#endif
