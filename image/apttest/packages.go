package apttest

import (
	"os"
)

// The packages tests add: a pure-Python module with a dependency, and
// packages that break the sandbox's rules.

// Hello is python3-quarry-hello: the module quarry_hello, which needs
// python3-quarry-greet (the module quarry_greet).
var Hello = Deb{
	Name: "python3-quarry-hello", Version: "1.2-1", Depends: "python3, python3-quarry-greet (>= 1.0)",
	Files: map[string]string{
		"usr/lib/python3/dist-packages/quarry_hello/__init__.py":                 "from quarry_greet import greet\n\n\ndef hello(who='world'):\n    return greet('hello', who)\n",
		"usr/lib/python3/dist-packages/quarry_hello-1.2.dist-info/METADATA":      "Metadata-Version: 2.1\nName: quarry-hello\nVersion: 1.2\n",
		"usr/share/doc/python3-quarry-hello/copyright":                           "public domain\n",
		"usr/share/doc/python3-quarry-hello/README":                              "slimmed away\n",
		"usr/lib/python3/dist-packages/quarry_hello-1.2.dist-info/top_level.txt": "quarry_hello\n",
	},
}

// Greet is Hello's dependency.
var Greet = Deb{
	Name: "python3-quarry-greet", Version: "1.0-3", Depends: "python3",
	Files: map[string]string{
		"usr/lib/python3/dist-packages/quarry_greet.py": "def greet(word, who):\n    return word + ', ' + who\n",
	},
}

// Setuid ships a setuid program.
var Setuid = Deb{
	Name: "python3-quarry-setuid", Version: "0.1-1",
	Files: map[string]string{"usr/bin/quarry-setuid": "#!/bin/sh\nid\n", "usr/lib/python3/dist-packages/quarry_setuid.py": "\n"},
	Modes: map[string]os.FileMode{"usr/bin/quarry-setuid": 0o755 | os.ModeSetuid},
}

// NeedsDev depends on python3-dev (Dev below), which the sandbox keeps
// out as a compiler toolchain.
var NeedsDev = Deb{
	Name: "python3-quarry-native", Version: "0.1-1", Depends: "python3-dev",
	Files: map[string]string{"usr/lib/python3/dist-packages/quarry_native.py": "\n"},
}

// Dev stands in for Debian's python3-dev.
var Dev = Deb{Name: "python3-dev", Version: "3.14.0-1", Files: map[string]string{"usr/share/doc/python3-dev/copyright": "x\n"}}

// Pip stands in for a package that brings pip as a program.
var Pip = Deb{
	Name: "python3-quarry-pipper", Version: "0.1-1",
	Files: map[string]string{"usr/bin/pip3": "#!/bin/sh\n", "usr/lib/python3/dist-packages/quarry_pipper.py": "\n"},
}

// All are every package above.
func All() []Deb { return []Deb{Hello, Greet, Setuid, NeedsDev, Dev, Pip} }
