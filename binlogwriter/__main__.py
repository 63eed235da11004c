from binlogwriter.cli import main

main()
