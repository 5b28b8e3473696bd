from ndbsim.cli.app import main

main()
