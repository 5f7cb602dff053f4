# SPDX-License-Identifier: GPL-3.0-or-later
# make install / make uninstall, with PREFIX (default /usr/local) and DESTDIR.
#   binary      $(PREFIX)/bin/neug
#   man pages   $(PREFIX)/share/man/man1/neug*.1
#   docs        $(PREFIX)/share/doc/neug/ (README, COPYING, doc/*.md, samples)
#   udev rule   /lib/udev/rules.d/90-neug.rules when PREFIX is /usr, else
#               $(PREFIX)/lib/udev/rules.d (udev does not read that: copy or
#               link it to /etc/udev/rules.d)
#   units       /lib/systemd/system when PREFIX is /usr, else
#               $(PREFIX)/lib/systemd/system (systemd reads /usr/local/lib/systemd/system)
# Units name the binary by its installed path.
BINDIR  ?= $(PREFIX)/bin
MANDIR  ?= $(PREFIX)/share/man/man1
DOCDIR  ?= $(PREFIX)/share/doc/neug
UDEVDIR ?= $(if $(filter /usr,$(PREFIX)),/lib/udev/rules.d,$(PREFIX)/lib/udev/rules.d)
UNITDIR ?= $(if $(filter /usr,$(PREFIX)),/lib/systemd/system,$(PREFIX)/lib/systemd/system)
INSTALL ?= install

PKG_MAN   = $(sort $(wildcard packaging/man/*.1))
PKG_UNITS = $(sort $(wildcard packaging/systemd/*.service packaging/systemd/*.socket))
PKG_DOCS  = $(wildcard README.md COPYING) $(sort $(wildcard doc/*.md))
PKG_SAMPLES = packaging/rng-tools/rng-tools-debian packaging/rng-tools/rngd.service.d/neug.conf

install: $(B)/neug
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR) $(DESTDIR)$(DOCDIR)/examples \
		$(DESTDIR)$(UDEVDIR) $(DESTDIR)$(UNITDIR)
	$(INSTALL) -m 0755 $(B)/neug $(DESTDIR)$(BINDIR)/neug
	$(INSTALL) -m 0644 $(PKG_MAN) $(DESTDIR)$(MANDIR)/
	$(INSTALL) -m 0644 packaging/udev/90-neug.rules $(DESTDIR)$(UDEVDIR)/90-neug.rules
	for u in $(PKG_UNITS); do \
		sed 's|@BINDIR@|$(BINDIR)|g' $$u > $(DESTDIR)$(UNITDIR)/$${u##*/}.tmp && \
		chmod 0644 $(DESTDIR)$(UNITDIR)/$${u##*/}.tmp && \
		mv $(DESTDIR)$(UNITDIR)/$${u##*/}.tmp $(DESTDIR)$(UNITDIR)/$${u##*/} || exit 1; \
	done
	$(if $(PKG_DOCS),$(INSTALL) -m 0644 $(PKG_DOCS) $(DESTDIR)$(DOCDIR)/)
	$(INSTALL) -m 0644 packaging/rng-tools/rng-tools-debian $(DESTDIR)$(DOCDIR)/examples/rng-tools-debian
	$(INSTALL) -m 0644 packaging/rng-tools/rngd.service.d/neug.conf $(DESTDIR)$(DOCDIR)/examples/rngd.service.d-neug.conf

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/neug
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/,$(notdir $(PKG_MAN)))
	rm -f $(DESTDIR)$(UDEVDIR)/90-neug.rules
	rm -f $(addprefix $(DESTDIR)$(UNITDIR)/,$(notdir $(PKG_UNITS)))
	rm -f $(addprefix $(DESTDIR)$(DOCDIR)/,$(notdir $(PKG_DOCS)))
	rm -f $(DESTDIR)$(DOCDIR)/examples/rng-tools-debian $(DESTDIR)$(DOCDIR)/examples/rngd.service.d-neug.conf
	-rmdir $(DESTDIR)$(DOCDIR)/examples $(DESTDIR)$(DOCDIR) 2>/dev/null

.PHONY: install uninstall
