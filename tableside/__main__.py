from tableside.cli import main

raise SystemExit(main())
