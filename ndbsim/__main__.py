from ndbsim.cli import main

main()
